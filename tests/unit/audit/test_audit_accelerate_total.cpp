// accelerate launch's --num_processes is the total over all machines
// (huggingface/accelerate src/accelerate/commands/launch.py: "The total
// number of processes to be launched in parallel"). Round 23's per-node
// front-end: `--num_processes 8 --num_machines $SLURM_NNODES` with 4 GPUs
// per node.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("a constant --num_processes with --num_machines $SLURM_NNODES: a warning")
{
  const std::string launch = "NUM_PROCS=8\nsrun bash -c 'accelerate launch --num_processes '\"$NUM_PROCS\"' "
                             "--num_machines '\"$SLURM_NNODES\"' --machine_rank $SLURM_PROCID train.py'\n";
  AuditResult r = run("#!/bin/bash\n" + launch);
  CAPTURE(describe(r));
  auto found = with_rule(r, "audit.accelerate_total");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(found[0]->diagnostic.message.find("--num_processes 8 is accelerate's total") != std::string::npos);

  // With the counts stated, audit.gpus_mismatch judges the total instead.
  r = run("#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --gpus-per-node=4\n" + launch);
  CHECK(with_rule(r, "audit.accelerate_total").empty());
  CHECK(with_rule(r, "audit.gpus_mismatch").size() == 1);

  // Right for the job it asks for, or derived from the allocation: nothing.
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gpus-per-node=4\n" + launch), "audit.accelerate_total")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\nsrun accelerate launch --num_processes $((SLURM_NNODES*4)) --num_machines "
                      "$SLURM_NNODES train.py\n"),
                  "audit.accelerate_total")
          .empty());
}
