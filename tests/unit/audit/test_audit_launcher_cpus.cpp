// A spawning launcher on Slurm's default CPUs. sbatch(1), --cpus-per-task:
// "the default is one processor per task"; round 21's bwUniCluster job ran
// `srun torchrun --nproc_per_node 4` under `--ntasks=4 --nodes=4` and asked
// for no CPUs.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("srun torchrun with 4 workers per node and one default CPU per task: a warning on torchrun")
{
  const std::string script = "#!/bin/bash\n#SBATCH --ntasks=4\n#SBATCH --nodes=4\n#SBATCH --gres=gpu:4\n"
                             "srun torchrun --nproc_per_node 4 --nnodes 4 --rdzv_backend c10d --rdzv_endpoint h:29500 "
                             "train.py\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.launcher_cpus");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 5);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(found[0]->diagnostic.message.find("torchrun starts 4 workers per node") != std::string::npos);
  CHECK(found[0]->diagnostic.message.find("1 CPU per node") != std::string::npos);
}

TEST_CASE("CPUs asked for, whole nodes, one worker, or a worker per task: nothing")
{
  const std::string launch = "srun torchrun --nproc_per_node 4 --nnodes 2 --rdzv_backend c10d --rdzv_endpoint h:1 t.py\n";
  const std::string head = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n";
  const std::string scripts[] = {
    head + "#SBATCH --cpus-per-task=32\n" + launch,
    head + "#SBATCH --exclusive\n" + launch,
    head + "#SBATCH --cpus-per-gpu=8\n" + launch,
    head + "srun -c 32 torchrun --nproc_per_node 4 --nnodes 2 --rdzv_backend c10d --rdzv_endpoint h:1 t.py\n",
    head + "srun torchrun --nproc_per_node 1 --nnodes 2 --rdzv_backend c10d --rdzv_endpoint h:1 t.py\n",
    "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=4\nsrun python train.py\n",
  };
  for (const auto& script : scripts) {
    const AuditResult r = run(script);
    CAPTURE(script);
    CAPTURE(describe(r));
    CHECK(with_rule(r, "audit.launcher_cpus").empty());
  }
}

// Round 21's LUMI job: `#SBATCH --cpus-per-task=1`, 8 tasks of
// pretrain_gpt.py with `--num-workers 4` (each worker a process:
// torch.utils.data.DataLoader, num_workers). Megatron's default is 2
// (megatron/training/arguments.py, `--num-workers`, default=2).
TEST_CASE("a Megatron process and its data loader workers on one CPU: advice on --cpus-per-task")
{
  const std::string head = "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=8\n#SBATCH --cpus-per-task=1\n";
  AuditResult r = run(head + "srun python pretrain_gpt.py --num-layers 2 --num-workers 4\n");
  CAPTURE(describe(r));
  auto found = with_rule(r, "audit.data_loader_cpus");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 4);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(found[0]->diagnostic.message.find("5 processes share 1 CPU") != std::string::npos);
  // The default 2 workers, and a torchrun of 8 on a task of 16 CPUs.
  r = run("#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n#SBATCH --cpus-per-task=16\n"
          "srun torchrun --nproc-per-node=8 pretrain_gpt.py --num-layers 2\n");
  found = with_rule(r, "audit.data_loader_cpus");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("Megatron's default --num-workers 2") != std::string::npos);
  // Enough CPUs, or none stated: nothing.
  CHECK(with_rule(run(head + "srun -c 8 python pretrain_gpt.py --num-layers 2 --num-workers 4\n"),
                  "audit.data_loader_cpus")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 1\nsrun python pretrain_gpt.py --num-layers 2\n"),
                  "audit.data_loader_cpus")
          .empty());
}

// Round 24's Leonardo accelerate job: `##SBATCH --cpus-per-task=32`, a
// comment to sbatch, which reads only lines that start with `#SBATCH`.
TEST_CASE("a commented-out CPU request asks for nothing")
{
  const std::string script = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n##SBATCH --cpus-per-task=32\n"
                             "srun torchrun --nproc_per_node 4 --nnodes 2 --rdzv_backend c10d --rdzv_endpoint h:1 t.py\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.launcher_cpus").size() == 1);
}

// torch/distributed/run.py sets OMP_NUM_THREADS=1 for its workers only when
// it is unset. Round 25: `export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK` (12)
// before torchrun with 8 workers.
TEST_CASE("OMP_NUM_THREADS of the task's CPUs for each of 8 torchrun workers: a warning")
{
  const std::string head = "#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=1\n#SBATCH --cpus-per-task=12\n";
  const std::string launch = "srun torchrun --nnodes 4 --nproc_per_node 8 --rdzv_backend c10d --rdzv_endpoint h:1 t.py\n";
  const AuditResult r = run(head + "export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK\n" + launch);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.omp_threads");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("96 OpenMP threads share 12 CPUs") != std::string::npos);
  CHECK(with_rule(run(head + "export OMP_NUM_THREADS=1\n" + launch), "audit.omp_threads").empty());
  CHECK(with_rule(run(head + launch), "audit.omp_threads").empty());
}

// Held-out round 28's TAMU job: `#SBATCH --cpus-per-task=2`, one task, and
// `srun deepspeed --num_gpus=4`: four ranks on two CPUs (sbatch(1),
// --cpus-per-task: a task's processes run on its CPUs where steps are
// confined).
TEST_CASE("fewer CPUs per task than the launcher's workers: a warning on the count")
{
  const std::string head = "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n#SBATCH --gres=gpu:4\n";
  const AuditResult r = run(head + "#SBATCH --cpus-per-task=2\nsrun deepspeed --num_gpus=4 train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.launcher_cpus");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 5);
  CHECK(found[0]->diagnostic.message.find("starts 4 workers per task, but each task has 2 CPUs") != std::string::npos);
  CHECK(with_rule(run(head + "#SBATCH --cpus-per-task=16\nsrun deepspeed --num_gpus=4 train.py\n"),
                  "audit.launcher_cpus")
          .empty());
  // DeepSpeed's own launcher (--launcher slurm, pdsh over a hostfile) starts the ranks elsewhere, as tasks of
  // their own or over ssh, not on this task's CPUs.
  CHECK(with_rule(run(head + "#SBATCH --cpus-per-task=2\ndeepspeed --num_gpus 4 --launcher SLURM --force_multi t.py\n"),
                  "audit.launcher_cpus")
          .empty());
}
