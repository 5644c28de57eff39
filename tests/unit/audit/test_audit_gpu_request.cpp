// A GPU launch in a job that asks Slurm for no GPU. On the local Slurm 22.05
// (scripts/slurm-cluster, Gres=gpu:8 per node) `sbatch -N1 --wrap …` got
// AllocTRES `billing=1,cpu=1,mem=1G,node=1` and no SLURM_GPUS_ON_NODE;
// `sbatch -N1 --exclusive` got `gres/gpu=8`; `--gpus-per-node=2` got
// `gres/gpu=2`. Held-out round 26: MegaMolBART's and Paella's jobs, 8 tasks
// per node and no --gres/--gpus*.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const std::string k_two_nodes = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n";

}  // namespace

TEST_CASE("torchrun on nodes the job asked no GPU for: a warning with the count to ask for")
{
  const AuditResult r = run(k_two_nodes + "srun torchrun --nnodes=2 --nproc_per_node=8 --rdzv-backend=c10d "
                                     "--rdzv-endpoint=$MASTER_ADDR:29500 train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.no_gpu_request");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(line_of(found[0]) == 2);
  CHECK(found[0]->diagnostic.fix.find("--gpus-per-node=8") != std::string::npos);
}

TEST_CASE("a GPU request, --exclusive, srun's own request, a CPU partition, or no resources in the script: nothing")
{
  const std::string launch = "srun torchrun --nnodes=2 --nproc_per_node=8 train.py\n";
  for (const std::string& line :
       {std::string("#SBATCH --gres=gpu:8\n"), std::string("#SBATCH --gpus-per-node=h100:8\n"),
        std::string("#SBATCH -G 16\n"), std::string("#SBATCH --gpus-per-task=1\n"),
        std::string("#SBATCH --exclusive\n"), std::string("#SBATCH --tres-per-task=gres/gpu:1\n"),
        std::string("#SBATCH --partition=cpu\n")}) {
    CAPTURE(line);
    CHECK(with_rule(run(k_two_nodes + line + launch), "audit.no_gpu_request").empty());
  }
  CHECK(with_rule(run(k_two_nodes + "srun --gres=gpu:8 torchrun --nnodes=2 --nproc_per_node=8 train.py\n"),
                  "audit.no_gpu_request")
          .empty());
  // Only a name and a log file: the submitter gives the resources on sbatch's command line.
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --job-name=x\n#SBATCH --output=x.log\n" + launch), "audit.no_gpu_request")
          .empty());
  // A Python program that is no GPU launcher (data preparation).
  CHECK(with_rule(run(k_two_nodes + "srun python prepare.py\n"), "audit.no_gpu_request").empty());
}

// Held-out round 30's CARC job: `--ntasks-per-node=1`, `--gpus-per-task=a100:2`
// and `deepspeed --num_gpus=4`: the node holds its task's 2 GPUs.
TEST_CASE("GPUs per node from --gpus-per-task times the tasks per node")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n"
                            "#SBATCH --gpus-per-task=a100:2\nsrun deepspeed --num_gpus=4 train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.gpus_mismatch");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("4 processes per node on 2 GPUs per node") != std::string::npos);
}

// Held-out round 30's NCSA Delta job: `--ntasks-per-node=2`,
// `--gpus-per-node=3`, `srun python3 …`: the tasks cannot share 3 GPUs evenly.
TEST_CASE("tasks per node that cannot split the GPUs evenly: a warning; an even split: nothing")
{
  const std::string head = "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=2\n";
  const AuditResult r = run(head + "#SBATCH --gpus-per-node=3\nsrun python3 bench.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.gpus_mismatch");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(with_rule(run(head + "#SBATCH --gpus-per-node=4\nsrun python3 bench.py\n"), "audit.gpus_mismatch").empty());
}
