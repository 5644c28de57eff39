// Families found on public launch scripts the rules had not seen (issue 13,
// sixth held-out round): each case is a synthetic script with one pattern.
// Where the bytes/messages come from is said per case.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("a stray word in an #SBATCH line stops sbatch, a value starting with '-' does not")
{
  // `sbatch --test-only` on the local Slurm 22.05: `#SBATCH -p your partition`
  // gives "Invalid directive found in batch script: partition"; `--comment
  // "-j x"` is accepted (getopt_long gives a required argument the next word).
  const AuditResult r = run("#!/bin/bash\n#SBATCH -p your partition\n#SBATCH --comment \"-j x\"\n#SBATCH -N 1   #4\n"
                            "#SBATCH --exclusive --requeue\nsrun python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.directive_option");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 2);
  CHECK(found[0]->diagnostic.message.find("Invalid directive found in batch script: partition") != std::string::npos);
}

TEST_CASE("a typographic dash in the #! line makes the interpreter open a file of that name")
{
  // The local Slurm 22.05: `#!/bin/sh –l` (U+2013) ends with "/bin/sh: 0: cannot open –l: No such file".
  const AuditResult r = run("#!/bin/sh \xE2\x80\x93l\n#SBATCH -N 2\nmpirun -n 8 python t.py\n");
  REQUIRE(with_rule(r, "audit.shebang_argument").size() == 1);
  CHECK(with_rule(run("#!/bin/bash -l\n#SBATCH -N 2\nsrun python t.py\n"), "audit.shebang_argument").empty());
}

TEST_CASE("a space after = runs the value as a command")
{
  // bash here: `port= 6379` prints "6379: command not found" and port stays unset.
  const AuditResult r = run("#!/bin/bash\nport= 6379 #20156\nCUDA_VISIBLE_DEVICES= python check.py\nsrun ray start --port=$port\n");
  const auto found = with_rule(r, "audit.assignment_space");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 2);
}

TEST_CASE("a quoted empty variable among srun's options becomes the program")
{
  // The local Slurm 22.05: `srun "" hostname` fails with "execve(): : No such file or directory".
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 1\nSAVE=\"\"\nif [ -f x ]; then SAVE=\"--container-save=x\"; fi\n"
                            "srun --container-image img \"${SAVE}\" -w \"$NODE\" python train.py\n");
  const auto found = with_rule(r, "audit.empty_quoted_word");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("SAVE") != std::string::npos);
}

TEST_CASE("WANDB_ variables are the training process's environment")
{
  // wandb reads WANDB_MODE from the environment (docs.wandb.ai, Environment variables).
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 1\nWANDB_MODE=offline\nsrun python train.py\n");
  CHECK(with_rule(r, "audit.not_exported").size() == 1);
}

TEST_CASE("a placeholder named after its option, singular, and a python -c check")
{
  // `--gpus-per-node GPU_NUM`: the local Slurm 22.05 refuses it ("Requested node
  // configuration is not available"); `python -c` is a one-line check, not the training.
  const AuditResult r = run("#!/bin/bash\n#SBATCH --gpus-per-node GPU_NUM\npython -c \"import torch\"\n"
                            "srun sh train_node.sh\n");
  CHECK(with_rule(r, "audit.placeholder").size() == 1);
  const auto advice = with_rule(r, "audit.no_launch");
  REQUIRE(advice.size() == 1);
  CHECK(advice[0]->diagnostic.message.find("train_node.sh") != std::string::npos);
}

TEST_CASE("srun deepspeed on several nodes without a hostfile trains one job per node")
{
  // deepspeedai/DeepSpeed deepspeed/launcher/runner.py, fetch_hostfile: "Unable to
  // find hostfile, will proceed with training with local resources only".
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=1\nsrun deepspeed train.py --deepspeed\n");
  REQUIRE(with_rule(r, "audit.deepspeed_without_hostfile").size() == 1);
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=4\nsrun deepspeed --hostfile hf train.py\n"),
                  "audit.deepspeed_without_hostfile")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=1\nsrun deepspeed train.py\n"), "audit.deepspeed_without_hostfile").empty());
}

TEST_CASE("a comment naming Lightning is said as a condition for --signal")
{
  // Lightning docs, "Run on a SLURM-managed cluster": auto-requeue needs #SBATCH --signal=SIGUSR1@90.
  const AuditResult r = run("#!/bin/bash\n# launching Lightning-based programs\n#SBATCH --nodes=2\nsrun python train.py\n");
  const auto found = with_rule(r, "audit.signal");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(found[0]->diagnostic.message.find("if so") != std::string::npos);
  CHECK(with_rule(run("#!/bin/bash\n# lightning fast\n#SBATCH --nodes=2\nsrun python train.py\n"), "audit.signal").empty());
}

TEST_CASE("torchrun's program named python")
{
  // torch/distributed/run.py: torchrun prepends Python to its script unless
  // --no-python, so `torchrun … python train.py` runs `python -u python train.py`.
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 2\nh=$(hostname)\n"
                            "srun torchrun --nnodes 2 --rdzv_endpoint $h:29500 python train.py\n");
  REQUIRE(with_rule(r, "audit.torchrun_python").size() == 1);
  CHECK(with_rule(run("#!/bin/bash\nsrun torchrun --no-python --nproc_per_node 2 python train.py\n"), "audit.torchrun_python")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\nsrun torchrun --nproc_per_node 2 train.py --python x\n"), "audit.torchrun_python").empty());
}
