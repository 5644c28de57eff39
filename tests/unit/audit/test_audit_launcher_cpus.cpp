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
