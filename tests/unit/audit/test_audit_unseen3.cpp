// Families found on public launch scripts the rules had not seen (issue 13,
// third held-out round): each case is a synthetic script with one pattern.
// Where the bytes/messages come from is said per case.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("an #SBATCH option sbatch does not have stops the submission")
{
  // The local Slurm 22.05 sbatch: "sbatch: unrecognized option
  // '--cpus_per_task=16'", "sbatch: invalid option -- 'j'"; it accepts
  // abbreviations (--part), the unlisted --tasks-per-node, and SPANK plugins
  // add options (--quotatype).
  const AuditResult r =
    run("#!/bin/bash\n#SBATCH --cpus_per_task=16\n#SBATCH -job_x\n#SBATCH --part=gpu --tasks-per-node=1\n"
        "#SBATCH --quotatype=spot\n#SBATCH --container-image=x\n#SBATCH -J ok\nsrun python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.directive_option");
  REQUIRE(found.size() == 2);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(line_of(found[0]) == 2);
  CHECK(found[0]->diagnostic.fix.find("--cpus-per-task") != std::string::npos);
  CHECK(line_of(found[1]) == 3);
  CHECK(found[1]->diagnostic.message.find("invalid option -- 'j'") != std::string::npos);
}

TEST_CASE("a launch left in the background with nothing waiting ends with the batch script")
{
  // The local Slurm 22.05: `srun sleep 30 &` as the last line, job COMPLETED after 1 s.
  const AuditResult bg = run("#!/bin/bash\n#SBATCH -N 1\nsrun torchrun --nproc_per_node 2 train.py &\n");
  REQUIRE(with_rule(bg, "audit.background_launch").size() == 1);
  CHECK(line_of(with_rule(bg, "audit.background_launch")[0]) == 3);
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 1\nsrun python a.py &\nsrun python b.py &\nwait\n"),
                  "audit.background_launch")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 1\nsrun python server.py &\nsrun python train.py\n"),
                  "audit.background_launch")
          .empty());
  // Without #SBATCH lines it may run under salloc, where the step outlives the script.
  CHECK(with_rule(run("#!/bin/bash\nsrun python train.py &\n"), "audit.background_launch").empty());
}

TEST_CASE("srun NAME=v cmd: srun executes the assignment as a program")
{
  // The local Slurm 22.05: "slurmstepd: error: execve(): FOO=1: No such file or directory".
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 1\nsrun FOO=1 BAR=2 python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.step_assignment");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("\"FOO=1\"") != std::string::npos);
  CHECK(with_rule(run("#!/bin/bash\nFOO=1 srun env BAR=2 python train.py --x=1\n"), "audit.step_assignment").empty());
}

TEST_CASE("--encoder-seq-length is Megatron's sequence length when --seq-length is absent")
{
  // Megatron-LM megatron/training/arguments.py validate_args: without
  // --seq-length, args.seq_length = args.encoder_seq_length.
  const std::string head =
    "#!/bin/bash\n#SBATCH -N 1\n#SBATCH --gpus-per-node=8\nsrun python pretrain_gpt.py --num-layers 2 "
    "--hidden-size 64 --num-attention-heads 4 --max-position-embeddings 1024 ";
  CHECK(with_rule(run(head + "--encoder-seq-length 1024\n"), "model.max_position_embeddings").empty());
  CHECK(with_rule(run(head + "--seq-length 2048\n"), "model.max_position_embeddings").size() == 1);
  // Neither: the value is unknown, not launchguard's default.
  const AuditResult none = run(head + "--micro-batch-size 1\n");
  CHECK(with_rule(none, "model.max_position_embeddings").empty());
}

TEST_CASE("--gres=gpu:N next to --gpus-per-node=M: the job gets N GPUs per node")
{
  // The local Slurm 22.05: TresPerNode lists both, the job's TRES holds
  // gres/gpu=N and SLURM_GPUS_ON_NODE=N, in either order.
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 1\n#SBATCH --gpus-per-node=8\n#SBATCH --gres=gpu:4\n"
                            "torchrun --standalone --nproc_per_node=2 train.py\n");
  const auto found = with_rule(r, "audit.gpus_mismatch");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("on 4 GPUs per node") != std::string::npos);
}
