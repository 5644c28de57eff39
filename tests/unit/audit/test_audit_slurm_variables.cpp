// SLURM_* variables set only for the option they hold (sbatch(1), OUTPUT
// ENVIRONMENT VARIABLES). On the local Slurm 22.05 `sbatch -N1 --gres=gpu:2`
// had SLURM_GPUS_ON_NODE=2 and no SLURM_GPUS_PER_NODE; `sbatch -N1` no
// SLURM_CPUS_PER_TASK, SLURM_NTASKS_PER_NODE or SLURM_NTASKS.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("$SLURM_GPUS_PER_NODE under --gres=gpu:4: a warning naming SLURM_GPUS_ON_NODE; set -u says it stops")
{
  const std::string launch =
    "srun torchrun --nnodes 2 --nproc_per_node=$SLURM_GPUS_PER_NODE --rdzv-backend c10d --rdzv-endpoint h:1 t.py\n";
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:4\nset -u\n" + launch);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.slurm_variable_unset");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 5);
  CHECK(found[0]->diagnostic.message.find("under `set -u` (line 4) bash stops") != std::string::npos);
  CHECK(found[0]->diagnostic.fix.find("SLURM_GPUS_ON_NODE") != std::string::npos);
}

TEST_CASE("the option given, a default, a test for it, or no resources in the script: nothing")
{
  const std::string use = "export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK\nsrun python t.py\n";
  for (const std::string& script : std::vector<std::string>{
         "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --cpus-per-task=8\n" + use,
        "#!/bin/bash\n#SBATCH --nodes=1\nexport OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}\nsrun python t.py\n",
        "#!/bin/bash\n#SBATCH --nodes=1\nif [ -n \"$SLURM_CPUS_PER_TASK\" ]; then\n  " + use + "fi\n",
        "#!/bin/bash\n#SBATCH --job-name=x\n" + use}) {
    CAPTURE(script);
    CHECK(with_rule(run(script), "audit.slurm_variable_unset").empty());
  }
  // Late #SBATCH lines are read as meant: the option is there.
  CHECK(with_rule(run("#!/bin/bash\nset -eu\n#SBATCH --nodes=1\n#SBATCH --cpus-per-task=8\n" + use),
                  "audit.slurm_variable_unset")
          .empty());
}

// Held-out round 29's CMU job: `if command -v srun …; then …; else
// SLURM_NNODES=1; fi` (a fallback outside Slurm), then `torchrun --nnodes
// $SLURM_NNODES`. In the job Slurm sets SLURM_NNODES; the else branch's 1 is
// no node count written twice.
TEST_CASE("a SLURM_* name assigned inside a block is not known after it")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n"
                            "if command -v srun >/dev/null; then\n  echo slurm\nelse\n  SLURM_NNODES=1\nfi\n"
                            "srun torchrun --nnodes $SLURM_NNODES --nproc_per_node 8 t.py\n");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.nodes_duplicated").empty());
}

// bash(1), ARITHMETIC EVALUATION: names inside $((…)) are variables, with or
// without `$`. Held-out round 29's music-transformer job:
// `export WORLD_SIZE=$(($SLURM_NNODES * $SLURM_GPUS_PER_NODE))` under
// --gres=gpu:4 (bash: "syntax error: operand expected", WORLD_SIZE empty).
TEST_CASE("a use inside $((…)) is a use, where it is written")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:4\n"
                            "export WORLD_SIZE=$(($SLURM_NNODES * $SLURM_GPUS_PER_NODE))\n"
                            "echo \"$SLURM_GPUS_PER_NODE\"\nsrun python t.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.slurm_variable_unset");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 4);
}
