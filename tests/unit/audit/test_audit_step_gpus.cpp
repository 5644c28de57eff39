// Workers per node against the GPUs the srun step itself gets. srun's own
// --gres=gpu:N and --gpus-per-node=N are per node and bound the step (srun man
// page, --gres: "Specifies a comma-delimited list of generic consumable
// resources" per node; a step sees the GPUs it requests, not the job's), so
// `srun --gres=gpu:1 torchrun --nproc_per_node=4` puts four ranks on one GPU
// even where #SBATCH asked for four. The shape of the first of two launch
// lines in a public CSCS script (issue 13, round 7), each line judged alone.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const std::string k_head = "#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=1\n#SBATCH --gres=gpu:4\n"
                           "MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n";

std::string torchrun(const std::string& srun_options, int nproc)
{
  return "srun " + srun_options + " torchrun --nnodes=4 --nproc_per_node=" + std::to_string(nproc)
         + " --rdzv_backend=c10d --rdzv_endpoint=$MASTER_ADDR:29500 train.py\n";
}

}  // namespace

TEST_CASE("srun --gres=gpu:1 under torchrun --nproc_per_node=4: four ranks on one GPU, on the first of two lines")
{
  const AuditResult r = run(k_head + torchrun("--gres=gpu:1", 4) + torchrun("", 4));
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.gpus_mismatch");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 6);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[0]->diagnostic.message.find("4 processes per node on 1 GPU per node (the step's own srun --gres=gpu:1)")
        != std::string::npos);
}

TEST_CASE("srun --gpus-per-node=8 on the launch line is the count, whatever #SBATCH says")
{
  const AuditResult r = run(k_head + torchrun("--gpus-per-node=8", 8));
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.gpus_mismatch").empty());  // #SBATCH says 4; the step has 8
  const AuditResult fewer = run(k_head + torchrun("--gpus-per-node=8", 4));
  const auto found = with_rule(fewer, "audit.gpus_mismatch");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);  // idle GPUs, not a failure
}

TEST_CASE("a step count that cannot be read is not judged; no srun count falls back to #SBATCH")
{
  CHECK(with_rule(run(k_head + torchrun("--gres=gpu:$NGPU", 8)), "audit.gpus_mismatch").empty());
  CHECK(with_rule(run(k_head + torchrun("", 4)), "audit.gpus_mismatch").empty());
  CHECK(with_rule(run(k_head + torchrun("", 8)), "audit.gpus_mismatch").size() == 1);
}
