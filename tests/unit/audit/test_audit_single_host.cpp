// A multi-node job whose torchrun runs without srun (issue 13, launch bugs
// that shellcheck does not know): torchrun starts workers on its own host
// only (torch/distributed/run.py documents running it on each node), and a
// batch script runs on the allocation's first node (sbatch man page: "the
// batch script is executed on the first node"). The first script is the shape
// of a public launch script found outside the development corpus.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

std::string script(const std::string& nodes, const std::string& launch)
{
  return "#!/bin/bash\n#SBATCH --nodes=" + nodes +
         "\n#SBATCH --ntasks-per-node=8\n#SBATCH --gpus-per-node=8\n"
         "MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n" +
         launch + "\n";
}

} // namespace

TEST_CASE("two nodes, torchrun without srun: the second node never starts")
{
  const AuditResult r = run(script("2", "torchrun --nnodes=$SLURM_NNODES --node_rank=$SLURM_NODEID "
                                        "--nproc_per_node=8 --master_addr=$MASTER_ADDR -m lm_engine.pretrain"));
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.single_host_launch");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(line_of(found[0]) == 6);
  CHECK(found[0]->diagnostic.message.find("never start") != std::string::npos);
}

TEST_CASE("torchrun --nnodes 1 on a multi-node allocation: a warning that the other nodes idle")
{
  const AuditResult r = run(script("4", "python -m torch.distributed.run --nnodes 1 --nproc_per_node 8 train.py"));
  const auto found = with_rule(r, "audit.single_host_launch");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(found[0]->diagnostic.message.find("other 3 nodes stay idle") != std::string::npos);
}

TEST_CASE("one launch per node, one node, or launchers that reach every node: no finding")
{
  for (const auto& [nodes, launch] : std::vector<std::pair<std::string, std::string>>{
         {"2", "srun --ntasks-per-node=1 torchrun --nnodes 2 --nproc_per_node 8 train.py"},
         {"1", "torchrun --nnodes 1 --nproc_per_node 8 train.py"},
         {"2", "deepspeed --num_nodes 2 --hostfile hosts train.py"},  // pdsh to every host
         {"2", "for h in $HOSTS; do ssh $h torchrun --nnodes 2 train.py & done"},
         {"2", "$LAUNCHER torchrun --nnodes 2 train.py"},  // an unknown wrapper may be srun
         {"$N", "torchrun --nnodes 2 train.py"}}) {         // nodes unknown
    CAPTURE(launch);
    const AuditResult r = run(script(nodes, launch));
    CHECK(with_rule(r, "audit.single_host_launch").empty());
  }
}
