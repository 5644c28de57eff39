// accelerate launch --num_processes N --num_machines $SLURM_NNODES: N is the
// total over all machines (accelerate/commands/launch.py, --num_processes:
// "The total number of processes to be launched in parallel"), so a
// constant N is right for one node count only while the machines follow the
// allocation. Round 23's per-node front-end script: NUM_PROCS=8 with
// GPUS_PER_NODE=4 unused, right on 2 nodes only. A warning, for a script
// that does not state its node and GPU counts (with them,
// audit.gpus_mismatch judges the total).
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace lg::audit::detail {

namespace {

bool follows_allocation(const Word& w)
{
  return std::any_of(w.expanded.begin(), w.expanded.end(), [](const std::string& name) {
    return name == "SLURM_NNODES" || name == "SLURM_JOB_NUM_NODES";
  });
}

}  // namespace

void accelerate_total_findings(FindingContext& c)
{
  const Launch* l = c.job.launch;
  const LaunchStage* a = l != nullptr ? l->stage("accelerate") : nullptr;
  if (a == nullptr) {
    return;
  }
  const LaunchOption* processes = a->find("num_processes");
  const LaunchOption* machines = a->find("num_machines");
  if (processes == nullptr || machines == nullptr || !processes->value || !machines->value
      || !processes->value->known || !follows_allocation(*machines->value)) {
    return;
  }
  const int total = integer(processes->value->text());
  if (total <= 1) {
    return;
  }
  if (c.job.nodes > 0 && c.job.gpus_per_node > 0) {
    return;  // counts known: audit.gpus_mismatch judges the total against them
  }
  c.add(Severity::warning, "audit.accelerate_total",
        fmt::format("--num_processes {} is accelerate's total over all machines, written as a constant, while "
                    "--num_machines follows the allocation (${}): it is right for one node count only",
                    total,
                    std::find(machines->value->expanded.begin(), machines->value->expanded.end(), "SLURM_NNODES")
                        != machines->value->expanded.end()
                      ? "SLURM_NNODES"
                      : "SLURM_JOB_NUM_NODES"),
        "derive it from the allocation: --num_processes $((SLURM_NNODES * GPUS_PER_NODE))",
        processes->value->offset);
}

}  // namespace lg::audit::detail
