// torchrun on several nodes with no --node_rank: under the default static
// rendezvous each agent takes --node-rank's default, 0 (pytorch
// torch/distributed/run.py, "--node-rank"/"--node_rank", default 0, also read
// from PET_NODE_RANK), so every node claims rank 0 and the job never starts.
// Round 19's Muon MoE script reads its node count from the caller's NNODES
// (default 1) and computes NODE_RANK, which it never passes.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const std::string k_two_nodes = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-node=8\n";

}  // namespace

TEST_CASE("srun torchrun --nnodes 2 on two nodes with no --node_rank: an error")
{
  const AuditResult r =
    run(k_two_nodes + "srun torchrun --nnodes 2 --nproc_per_node 8 --master_addr n1 --master_port 6000 train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.torchrun_node_rank");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(line_of(found[0]) == 5);
}

TEST_CASE("--nnodes from the caller's environment and no --node_rank: a warning naming the variable")
{
  const std::string script = "#!/bin/bash\nNUM_NODES=${NNODES:-1}\nNODE_RANK=${RANK:-0}\n"
                             "ARGS=(\n  --nproc_per_node 8\n  --nnodes $NUM_NODES\n  --master_addr ${MASTER_ADDR:-localhost}\n)\n"
                             "torchrun ${ARGS[@]} train.py\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.torchrun_node_rank");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(line_of(found[0]) == 6);
  CHECK(found[0]->diagnostic.message.find("from NNODES in the caller's environment") != std::string::npos);
}

TEST_CASE("a node rank, a dynamic rendezvous, --standalone, PET_NODE_RANK or a count the script sets: nothing")
{
  const std::string launch = "srun torchrun --nnodes 2 --nproc_per_node 8 ";
  for (const std::string& rest :
       {std::string("--node_rank $SLURM_NODEID train.py\n"), std::string("--rdzv_backend c10d --rdzv_endpoint n1:29500 train.py\n"),
        std::string("--node-rank=1 train.py\n")}) {
    CHECK(with_rule(run(k_two_nodes + launch + rest), "audit.torchrun_node_rank").empty());
  }
  CHECK(with_rule(run(k_two_nodes + "export PET_NODE_RANK=0\n" + launch + "train.py\n"), "audit.torchrun_node_rank")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\ntorchrun --standalone --nnodes 1 --nproc_per_node 8 train.py\n"),
                  "audit.torchrun_node_rank")
          .empty());
  // One node, set by the script itself (or Slurm's count): nothing to say.
  CHECK(with_rule(run("#!/bin/bash\nNNODES=1\ntorchrun --nnodes ${NNODES:-1} --nproc_per_node 8 train.py\n"),
                  "audit.torchrun_node_rank")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\ntorchrun --nnodes 1 --nproc_per_node 8 train.py\n"), "audit.torchrun_node_rank")
          .empty());
}
