// Ranks from the batch host (src/audit/findings_ranks.cpp). Issue 13, round
// 17 (bench/audit/corpus.md): three public accelerate jobs got seven
// per_task_variable errors that were all wrong, and one multi-node job that
// never starts got nothing. What the rules now read:
// - SLURM_LOCALID numbers the tasks of one node ("Node local task ID for the
//   process within a job", sbatch(1) OUTPUT ENVIRONMENT VARIABLES): with one
//   task per node the batch host's 0 is every task's value;
// - a node rank option (--node_rank, --machine_rank) on a one-node job: 0 is
//   the only node's rank;
// - RANK, LOCAL_RANK, NODE_RANK … exported for a launcher that starts its own
//   workers: torch elastic's agent sets the ranks of every worker it starts
//   (pytorch/pytorch torch/distributed/elastic/agent/server/
//   local_elastic_agent.py, _start_workers), so the exported value never
//   reaches them;
// - accelerate launch on several nodes with no --machine_rank: every node is
//   machine 0 under the default static rendezvous (accelerate docs,
//   "multi_node_multi_gpu" configuration: machine_rank 0 and 1, rdzv_backend
//   static).
// Each script is synthetic, in the shape of the public jobs.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const std::string k_rank_head = "#!/bin/bash\n#SBATCH -N 2\n#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-node=4\n"
                                "MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n";
const std::string k_rank_accelerate = "srun accelerate launch --num_processes 8 --num_machines 2 --main_process_ip "
                                      "$MASTER_ADDR --main_process_port 6000";
const std::string k_rank_program = " train.py --bf16 True\n";

}  // namespace

TEST_CASE("ranks: $SLURM_LOCALID on the batch host is every task's value with one task per node")
{
  const AuditResult one = run(k_rank_head + "export LOCAL_RANK=$SLURM_LOCALID\nsrun python train.py\n");
  CAPTURE(describe(one));
  CHECK(with_rule(one, "audit.per_task_variable").empty());
  // Four tasks per node differ in it: still an error.
  std::string four = k_rank_head;
  four.replace(four.find("--ntasks-per-node=1"), 19, "--ntasks-per-node=4");
  const AuditResult r = run(four + "export LOCAL_RANK=$SLURM_LOCALID\nsrun python train.py\n");
  const auto found = with_rule(r, "audit.per_task_variable");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
}

TEST_CASE("ranks: --machine_rank $SLURM_PROCID on one node is the only node's rank, 0")
{
  const std::string script = "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n#SBATCH --gres=gpu:4\n"
                             "srun accelerate launch --num_machines 1 --num_processes 4 --machine_rank $SLURM_PROCID"
                             + k_rank_program;
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.per_task_variable").empty());
  // On two nodes the batch host's 0 is wrong for the second one.
  const AuditResult two = run(k_rank_head + k_rank_accelerate + " --machine_rank $SLURM_NODEID" + k_rank_program);
  CHECK(with_rule(two, "audit.per_task_variable").size() == 1);
}

TEST_CASE("ranks: RANK and LOCAL_RANK exported for a spawning launcher are set again for each worker")
{
  const std::string exports = "export NODE_RANK=$SLURM_NODEID\nexport LOCAL_RANK=$SLURM_LOCALID\n"
                              "export RANK=$SLURM_PROCID\n";
  const AuditResult r =
    run(k_rank_head + exports + k_rank_accelerate + " --machine_rank \\$SLURM_NODEID" + k_rank_program);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.per_task_variable").empty());
  const AuditResult torchrun = run(k_rank_head + exports
                                   + "srun torchrun --nnodes 2 --nproc_per_node 4 --rdzv_backend c10d "
                                     "--rdzv_endpoint $MASTER_ADDR:29500"
                                   + k_rank_program);
  CAPTURE(describe(torchrun));
  CHECK(with_rule(torchrun, "audit.per_task_variable").empty());
  // `srun python` starts the workers itself: they all read the batch host's
  // RANK (LOCAL_RANK is 0 on every node with one task each, so only these two).
  const AuditResult plain = run(k_rank_head + exports + "srun python train.py\n");
  CAPTURE(describe(plain));
  CHECK(with_rule(plain, "audit.per_task_variable").size() == 2);
  // A variable the launch line itself expands is the launcher's own option.
  const AuditResult expanded = run(k_rank_head + exports
                                   + "srun torchrun --nnodes 2 --nproc_per_node 4 --node_rank $NODE_RANK "
                                     "--master_addr $MASTER_ADDR"
                                   + k_rank_program);
  CHECK(with_rule(expanded, "audit.per_task_variable").size() == 1);
}

TEST_CASE("ranks: accelerate launch on two nodes with no --machine_rank makes both machine 0")
{
  const AuditResult r = run(k_rank_head + k_rank_accelerate + k_rank_program);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.accelerate_machine_rank");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(line_of(found[0]) == 6);
  CHECK(found[0]->diagnostic.message.find("--num_machines 2") != std::string::npos);
  // Given per task, left to a c10d rendezvous, to a config file, or on one node: nothing.
  for (const std::string& extra : {std::string(" --machine_rank \\$SLURM_NODEID"), std::string(" --rdzv_backend c10d"),
                                   std::string(" --config_file fsdp.yaml"), std::string(" $EXTRA")}) {
    const AuditResult ok = run(k_rank_head + "EXTRA=$(cat launch_args)\n" + k_rank_accelerate + extra + k_rank_program);
    CAPTURE(extra);
    CHECK(with_rule(ok, "audit.accelerate_machine_rank").empty());
  }
  std::string one_node = k_rank_head;
  one_node.replace(one_node.find("-N 2"), 4, "-N 1");
  const AuditResult single =
    run(one_node + "srun accelerate launch --num_processes 4 --num_machines 1" + k_rank_program);
  CHECK(with_rule(single, "audit.accelerate_machine_rank").empty());
}

// Round 22's FastVideo job: `export TRITON_CACHE_DIR=/tmp/triton_cache_${SLURM_PROCID}`
// in the batch shell. Every task gets /tmp/triton_cache_0, the first node's
// expansion; the job runs, sharing one cache directory per node: a warning
// about a path, not the rank error.
TEST_CASE("a per-task variable in an exported path: a warning, not the rank error")
{
  const std::string script = "#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=1\n"
                             "export TRITON_CACHE_DIR=/tmp/triton_cache_${SLURM_PROCID}\n"
                             "export MY_RANK=$SLURM_PROCID\n"
                             "srun torchrun --nnodes 4 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint h:1 t.py\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.per_task_variable");
  REQUIRE(found.size() == 2);
  CHECK(line_of(found[0]) == 4);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(found[0]->diagnostic.message.find("in TRITON_CACHE_DIR's path") != std::string::npos);
  CHECK(line_of(found[1]) == 5);
  CHECK(found[1]->diagnostic.severity == lg::Severity::error);
}
