// Hydra trainer overrides against the srun step: Lightning's SLURMEnvironment
// raises when trainer num_nodes differs from SLURM_NNODES or devices from
// SLURM_NTASKS_PER_NODE (lightning src/lightning/fabric/plugins/environments/
// slurm.py, validate_settings: "You set `num_nodes=…` in Lightning, but the
// number of nodes configured in SLURM `--nodes=…` does not match"). Round 19's
// NeMo-Aligner RLOO job ran its critic (trainer.num_nodes=2) in het group 0
// of 16 nodes and its actor (trainer.num_nodes=8) in group 1 of 2 nodes.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const std::string k_het = "#!/bin/bash\n#SBATCH -N 16 --ntasks-per-node 8 --gpus-per-node=8\n#SBATCH hetjob\n"
                          "#SBATCH -N 2 --ntasks-per-node 8 --gpus-per-node=8\n";

}  // namespace

TEST_CASE("trainer.num_nodes against the het group its srun step runs in: an error on each mismatch")
{
  const std::string script =
    k_het + "srun --het-group=0 bash -c \"python -u serve_reward_model.py trainer.num_nodes=2 trainer.devices=8\" &\n"
            "srun --het-group=1 bash -c \"python -u train_actor.py trainer.num_nodes=8 ++trainer.devices=8\" &\nwait\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.trainer_nodes");
  REQUIRE(found.size() == 2);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(line_of(found[0]) == 5);
  CHECK(found[0]->diagnostic.message.find("trainer.num_nodes=2") != std::string::npos);
  CHECK(found[0]->diagnostic.message.find("het group 0") != std::string::npos);
  CHECK(found[0]->diagnostic.fix.find("(16)") != std::string::npos);
  CHECK(line_of(found[1]) == 6);
  CHECK(found[1]->diagnostic.fix.find("(2)") != std::string::npos);
}

TEST_CASE("trainer.devices against tasks per node, and matching or unknown counts")
{
  const std::string one = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=4\n#SBATCH --gpus-per-node=8\n";
  const AuditResult devices = run(one + "srun python train.py trainer.num_nodes=2 trainer.devices=8\n");
  CAPTURE(describe(devices));
  const auto found = with_rule(devices, "audit.trainer_nodes");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("4 tasks per node") != std::string::npos);
  // Matching, from a variable, or with no srun (the trainer starts its own processes).
  CHECK(with_rule(run(one + "srun python train.py trainer.num_nodes=2 trainer.devices=4\n"), "audit.trainer_nodes")
          .empty());
  CHECK(with_rule(run(one + "srun python train.py trainer.num_nodes=$N trainer.devices=4\n"), "audit.trainer_nodes")
          .empty());
  CHECK(with_rule(run(one + "python train.py trainer.num_nodes=1 trainer.devices=8\n"), "audit.trainer_nodes").empty());
  // An srun -N of its own is the step's node count.
  CHECK(with_rule(run(one + "srun -N 1 python train.py trainer.num_nodes=1 trainer.devices=4\n"), "audit.trainer_nodes")
          .empty());
}
