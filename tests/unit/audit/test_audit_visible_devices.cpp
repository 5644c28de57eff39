// Slurm sets CUDA_VISIBLE_DEVICES to the job's GPUs (Slurm gres.html, "GPU
// Management"); a fixed list in the script replaces it. Held-out round 28:
// `export CUDA_VISIBLE_DEVICES=0,1` under `--gres=gpu:a100:2`.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("a fixed CUDA_VISIBLE_DEVICES in a GPU job: advice, a warning when the count differs")
{
  const std::string head = "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --gres=gpu:a100:2\n";
  const AuditResult both = run(head + "export CUDA_VISIBLE_DEVICES=0,1\nsrun python train.py\n");
  const auto same = with_rule(both, "audit.visible_devices_fixed");
  REQUIRE(same.size() == 1);
  CHECK(same[0]->diagnostic.severity == lg::Severity::advice);
  const AuditResult one = run(head + "export CUDA_VISIBLE_DEVICES=0\nsrun python train.py\n");
  const auto fewer = with_rule(one, "audit.visible_devices_fixed");
  REQUIRE(fewer.size() == 1);
  CHECK(fewer[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(fewer[0]->diagnostic.message.find("the others stay idle") != std::string::npos);
  // Derived from Slurm's own value, or no GPU asked: nothing.
  CHECK(with_rule(run(head + "export CUDA_VISIBLE_DEVICES=$SLURM_LOCALID\nsrun python train.py\n"),
                  "audit.visible_devices_fixed")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=1\nexport CUDA_VISIBLE_DEVICES=0\npython train.py\n"),
                  "audit.visible_devices_fixed")
          .empty());
}
