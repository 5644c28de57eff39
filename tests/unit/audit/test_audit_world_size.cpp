// torch.distributed's env:// rendezvous and Megatron (megatron/training/
// arguments.py, `int(os.getenv("WORLD_SIZE", '1'))`) take the world from
// WORLD_SIZE. Held-out round 22: WORLD_SIZE=4 exported for one process.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("WORLD_SIZE exported for more processes than srun starts: an error for Megatron, else a warning")
{
  const std::string head = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=4\n#SBATCH --gres=gpu:4\n";
  const AuditResult megatron = run(head + "export WORLD_SIZE=16\nexport RANK=0\nsrun python pretrain_gpt.py\n");
  CAPTURE(describe(megatron));
  const auto found = with_rule(megatron, "audit.world_size_mismatch");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(line_of(found[0]) == 5);
  const AuditResult other = run(head + "export WORLD_SIZE=16\nsrun python train.py\n");
  const auto warned = with_rule(other, "audit.world_size_mismatch");
  REQUIRE(warned.size() == 1);
  CHECK(warned[0]->diagnostic.severity == lg::Severity::warning);
  // The right count, or a launcher that sets it for its workers: nothing.
  CHECK(with_rule(run(head + "export WORLD_SIZE=8\nsrun python train.py\n"), "audit.world_size_mismatch").empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\nexport WORLD_SIZE=16\n"
                      "srun torchrun --nnodes 2 --nproc_per_node 8 --rdzv-backend c10d --rdzv-endpoint h:1 t.py\n"),
                  "audit.world_size_mismatch")
          .empty());
}
