// CPUs for a launcher's workers. sbatch(1), --cpus-per-task: "the default is
// one processor per task"; a job is allocated its tasks' CPUs, and where the
// cluster confines steps to their allocation (task/cgroup ConstrainCores,
// task/affinity) every process of a step runs on those CPUs. A torchrun,
// deepspeed or accelerate launcher then starts its workers (and their data
// loader processes) on the one CPU its task was given, and the GPUs wait on
// the input pipeline. Round 21's bwUniCluster job: `srun torchrun
// --nproc_per_node 4` with one task per node and no --cpus-per-task.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace lg::audit::detail {

void cpu_findings(FindingContext& c)
{
  const ScriptModel& m = c.model;
  const Launch* l = c.job.launch;
  if (l == nullptr || m.directives.empty() || c.job.world <= 0 || c.job.world_nodes <= 0
      || c.job.world % c.job.world_nodes != 0) {
    return;
  }
  const LaunchStage* spawner = nullptr;
  for (const char* tool : {"torchrun", "deepspeed", "accelerate"}) {
    spawner = spawner != nullptr ? spawner : l->stage(tool);
  }
  const int workers = c.job.world / c.job.world_nodes;
  if (spawner == nullptr || workers < 2) {
    return;
  }
  // Anything that asks for CPUs, in a directive, on the srun line or in a
  // variable sbatch/srun read (SLURM_CPUS_PER_TASK …), even commented out:
  // not judged.
  static constexpr std::array<std::string_view, 6> k_cpu_words = {"cpus-per", "exclusive", "CPUS_PER", "mincpus",
                                                                  "cores-per", "--cpus"};
  if (std::any_of(k_cpu_words.begin(), k_cpu_words.end(),
                  [&](std::string_view w) { return m.text.find(w) != std::string::npos; })
      || m.directive("cpus-per-task") != nullptr) {
    return;
  }
  const LaunchStage* srun = l->stage("srun");
  if (srun != nullptr && (srun->find("c") != nullptr || c.job.tasks_per_node <= 0)) {
    return;
  }
  const int tasks = srun != nullptr ? c.job.tasks_per_node : 1;
  if (tasks >= workers) {
    return;
  }
  const std::string name = spawner->tool == "accelerate" ? "accelerate launch" : spawner->tool;
  c.add(Severity::warning, "audit.launcher_cpus",
        fmt::format("{} starts {} workers per node, but the job asks for no CPUs beyond Slurm's default of one per "
                    "task (no --cpus-per-task, --cpus-per-gpu or --exclusive): {} CPU{} per node, which the workers "
                    "and their data loaders share where Slurm confines a step to its CPUs, so the GPUs wait on them (unless the "
                    "partition gives whole nodes or sets DefCpuPerGPU)",
                    name, workers, tasks, tasks > 1 ? "s" : ""),
        fmt::format("#SBATCH --cpus-per-task=N (the node's cores over {} task{} per node), or --exclusive; srun "
                    "passes it on (Slurm 22.05+ needs SRUN_CPUS_PER_TASK=$SLURM_CPUS_PER_TASK, or srun -c)",
                    tasks, tasks > 1 ? "s" : ""),
        spawner->offset);
}

}  // namespace lg::audit::detail
