// The training processes' environment and signals (issue 13, held-out rounds
// 2-6): debugging settings, WANDB_ and Slurm's GPU variables, --signal with
// and without a trap, Lightning's requeue. Each case is a synthetic script
// with one pattern; where the behaviour comes from is said per case.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("--signal=B:USR1 without a trap kills the batch shell, whatever the program")
{
  // sbatch(1) --signal: "B" signals the batch shell only; bash's default action
  // for SIGUSR1 is to terminate (signal(7)).
  const AuditResult untrapped = run("#!/bin/bash\n#SBATCH --signal=B:USR1@60\nsrun python train.py\n");
  const auto found = with_rule(untrapped, "audit.signal");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("60 s before") != std::string::npos);
  const AuditResult trapped = run("#!/bin/bash\n#SBATCH --signal=B:USR1@60\ntrap 'kill -USR1 $P' USR1\n"
                                  "srun python train.py & P=$!\nwait\n");
  CHECK(with_rule(trapped, "audit.signal").empty());
}

TEST_CASE("NCCL_DEBUG=TRACE and TORCH_DISTRIBUTED_DEBUG=DETAIL are debugging settings; INFO is not")
{
  // NCCL user guide (Logging): TRACE for deep debugging, WARN the production
  // minimum; PyTorch distributed.rst: DETAIL may impact performance.
  const AuditResult r = run("#!/bin/bash\nexport NCCL_DEBUG=TRACE\nexport TORCH_DISTRIBUTED_DEBUG=detail\n"
                            "srun python train.py\n");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "env.debug_setting").size() == 2);
  const AuditResult info =
    run("#!/bin/bash\nexport NCCL_DEBUG=INFO\nexport TORCH_DISTRIBUTED_DEBUG=INFO\nsrun python train.py\n");
  CHECK(with_rule(info, "env.debug_setting").empty());
}

TEST_CASE("Lightning without #SBATCH --signal: advice only when the code says Lightning")
{
  // Lightning docs, "Run on a SLURM-managed cluster": auto-requeue needs
  // #SBATCH --signal=SIGUSR1@90.
  const AuditResult cli = run("#!/bin/bash\n#SBATCH -N 2\nsrun python main.py fit --trainer.num_nodes=2\n");
  const auto found = with_rule(cli, "audit.signal");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 2\nsrun lightning run model train.py\n"), "audit.signal").size() == 1);
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --signal=SIGUSR1@90\nsrun python main.py fit --trainer.num_nodes=2\n"),
                  "audit.signal")
          .empty());
  // A file name is not evidence; a comment is said as a condition ("if so", test_audit_unseen6.cpp).
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 2\nsrun python lightning_train.py\n"), "audit.signal").empty());
}

TEST_CASE("a variable Slurm exports for a GPU job is not reported as unexported")
{
  // Slurm gres.html: CUDA_VISIBLE_DEVICES is in the batch script's environment
  // when GPUs are allocated, so `CUDA_VISIBLE_DEVICES=0,1` changes the exported value.
  const AuditResult r = run("#!/bin/bash\n#SBATCH --gres=gpu:4\nCUDA_VISIBLE_DEVICES=\"0,1,2,3\"\nNCCL_DEBUG=WARN\n"
                            "srun python train.py\n");
  const auto found = with_rule(r, "audit.not_exported");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("NCCL_DEBUG") != std::string::npos);
}

TEST_CASE("WANDB_ variables are the training process's environment")
{
  // wandb reads WANDB_MODE from the environment (docs.wandb.ai, Environment variables).
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 1\nWANDB_MODE=offline\nsrun python train.py\n");
  CHECK(with_rule(r, "audit.not_exported").size() == 1);
}

TEST_CASE("a comment naming Lightning is said as a condition for --signal")
{
  // Lightning docs, "Run on a SLURM-managed cluster": auto-requeue needs #SBATCH --signal=SIGUSR1@90.
  const AuditResult r =
    run("#!/bin/bash\n# launching Lightning-based programs\n#SBATCH --nodes=2\nsrun python train.py\n");
  const auto found = with_rule(r, "audit.signal");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(found[0]->diagnostic.message.find("if so") != std::string::npos);
  CHECK(
    with_rule(run("#!/bin/bash\n# lightning fast\n#SBATCH --nodes=2\nsrun python train.py\n"), "audit.signal").empty());
}

TEST_CASE("a debugging switch assigned and not exported: advice to remove it, never to export it")
{
  // CUDA_LAUNCH_BLOCKING=1 (pytorch/pytorch docs/source/notes/cuda.rst,
  // "Asynchronous execution") is off for the launched processes while it is
  // not exported; `export` would turn it on.
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --gres=gpu:2\nCUDA_LAUNCH_BLOCKING=1\n"
                            "NCCL_DEBUG=INFO\nsrun torchrun --nproc_per_node 2 train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.not_exported");
  REQUIRE(found.size() == 2);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(found[0]->diagnostic.message.find("do not export it") != std::string::npos);
  CHECK(found[0]->edits.empty());
  // NCCL_DEBUG=INFO is not a debugging switch of env.debug_setting: export
  // it; it only changes what NCCL prints, so unexported it is advice.
  CHECK(found[1]->diagnostic.severity == lg::Severity::advice);
  CHECK(found[1]->diagnostic.fix == "export NCCL_DEBUG");
}

// Round 21's LUMI job: `OMP_DISPLAY_AFFINITY=true` unexported. OpenMP reads
// it only to print each thread's binding (OpenMP 5.0, 6.14 OMP_DISPLAY_AFFINITY),
// so the job runs the same and the log lacks those lines: advice, not the
// warning a setting that changes the run gets.
TEST_CASE("an unexported variable that only changes what is printed is advice")
{
  const std::string script = "#!/bin/bash\n#SBATCH --nodes=1\nOMP_DISPLAY_AFFINITY=true\nNCCL_IB_HCA=mlx5\n"
                             "srun python train.py\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.not_exported");
  REQUIRE(found.size() == 2);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(found[0]->diagnostic.message.find("only changes what they print") != std::string::npos);
  CHECK(found[1]->diagnostic.severity == lg::Severity::warning);
}

// Round 23's DeepSpeed job: `ZERO_STAGE=3`, never expanded or exported.
// DeepSpeed reads the stage from its config (zero_optimization.stage), and
// Megatron-DeepSpeed from --zero-stage, not from the shell.
TEST_CASE("a training setting assigned and never used: advice; used, exported or sourced after: nothing")
{
  const std::string head = "#!/bin/bash\n#SBATCH -N 1\n";
  const AuditResult r = run(head + "ZERO_STAGE=3\nsrun deepspeed train.py --deepspeed_config ds.json\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.unused_setting");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  for (const std::string& body : {std::string("ZERO_STAGE=3\nsrun deepspeed train.py --zero-stage $ZERO_STAGE\n"),
                                  std::string("export ZERO_STAGE=3\nsrun deepspeed train.py\n"),
                                  std::string("ZERO_STAGE=3\nsource make_config.sh\nsrun deepspeed train.py\n"),
                                  std::string("MY_STAGE=3\nsrun deepspeed train.py\n")}) {
    CHECK(with_rule(run(head + body), "audit.unused_setting").empty());
  }
}

// Held-out round 30's Pawsey job: `srun … bash -c "torchrun --nnodes=N
// --nproc_per_node=8 … trainer.devices=8"` with one task per node: Lightning
// uses torchrun's environment there (accelerator_connector.py,
// _is_slurm_managing_tasks: SLURM_NTASKS != devices × num_nodes), and
// compares nothing with Slurm.
TEST_CASE("trainer.devices under srun torchrun is torchrun's, not the srun step's")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n"
                            "srun torchrun --nnodes=2 --nproc_per_node=8 --rdzv-backend c10d --rdzv-endpoint h:1 "
                            "train.py trainer.num_nodes=2 trainer.devices=8\n");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.trainer_nodes").empty());
}
