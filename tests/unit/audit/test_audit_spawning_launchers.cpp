// Launchers that start their own workers, run under srun with one task per
// node: torchrun, deepspeed and accelerate launch. srun's tasks are the
// per-node launchers, not the training processes, so the process count comes
// from each launcher's own options: torchrun --nproc_per_node per node;
// deepspeed --num_gpus per node and --num_nodes, or the hostfile's hosts and
// slots when those are not given (deepspeed/launcher/runner.py,
// fetch_hostfile and the resource pool); accelerate launch --num_processes
// "The total number of processes to be launched in parallel" over
// --num_machines (accelerate/commands/launch.py). Issue 13, round 11: `srun
// accelerate launch` with one task per node was judged as one process per
// node ("1 processes per node on 8 GPUs", and a world-size error from 2
// processes on a 16-GPU job).
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const std::string k_spawn_head = "#!/bin/bash\n#SBATCH --nodes=2 --ntasks-per-node=1 --gpus-per-node=8\n"
                                 "export CUDA_DEVICE_MAX_CONNECTIONS=1\n"
                                 "MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n1)\n";
const std::string k_spawn_megatron = " pretrain_gpt.py --tensor-model-parallel-size 8 --pipeline-model-parallel-size 2 "
                                     "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 4096 "
                                     "--max-position-embeddings 4096 --micro-batch-size 1 --global-batch-size 8\n";

const std::string k_spawn_accelerate = "srun accelerate launch --multi_gpu --num_machines 2 --num_processes 16 "
                                       "--machine_rank \\$SLURM_NODEID --main_process_ip $MASTER_ADDR "
                                       "--main_process_port 29500";

bool spawn_any_error(const AuditResult& r)
{
  for (const auto& f : r.findings) {
    if (f.diagnostic.severity == lg::Severity::error) {
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("srun accelerate launch: --num_processes is the total over --num_machines, not srun's tasks")
{
  const AuditResult r = run(k_spawn_head + k_spawn_accelerate + k_spawn_megatron);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.gpus_mismatch").empty());     // 16 / 2 = 8 per node on 8 GPUs
  CHECK(with_rule(r, "parallelism.world_size").empty());  // 16 processes, tp*pp = 16
  CHECK_FALSE(spawn_any_error(r));
  // The launcher's own count is judged: 32 over 2 machines on 8 GPUs per node.
  std::string over = k_spawn_accelerate;
  over.replace(over.find("16"), 2, "32");
  const AuditResult wrong = run(k_spawn_head + over + k_spawn_megatron);
  const auto found = with_rule(wrong, "audit.gpus_mismatch");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("16 processes per node on 8 GPUs") != std::string::npos);
  // With the count left to accelerate's config file nothing is guessed.
  const AuditResult config = run(k_spawn_head + "srun accelerate launch --config_file fsdp.yaml" + k_spawn_megatron);
  CAPTURE(describe(config));
  CHECK(with_rule(config, "audit.gpus_mismatch").empty());
  CHECK(with_rule(config, "parallelism.world_size").empty());
}

TEST_CASE("srun deepspeed with a hostfile and no --num_nodes: the hostfile's nodes, not one node")
{
  const AuditResult r = run(k_spawn_head
                            + "srun deepspeed --hostfile hostfile --no_ssh --node_rank=\\$SLURM_NODEID "
                              "--master_addr $MASTER_ADDR"
                            + k_spawn_megatron);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "parallelism.world_size").empty());  // before: 1 node x 8 GPUs against tp*pp = 16
  CHECK(with_rule(r, "audit.gpus_mismatch").empty());     // before: srun's 1 task per node on 8 GPUs
  CHECK_FALSE(spawn_any_error(r));
  // --num_gpus is per node, and is judged against the GPUs.
  const AuditResult four = run(k_spawn_head
                               + "srun deepspeed --hostfile hostfile --num_nodes 2 --num_gpus 4 "
                                 "--master_addr $MASTER_ADDR"
                               + k_spawn_megatron);
  const auto found = with_rule(four, "audit.gpus_mismatch");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
}

TEST_CASE("several srun tasks per node each starting accelerate launch: the torchrun family's error")
{
  std::string head = k_spawn_head;
  head.replace(head.find("--ntasks-per-node=1"), 19, "--ntasks-per-node=8");
  const AuditResult r = run(head + k_spawn_accelerate + " train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.torchrun_tasks_per_node");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("8 tasks per node each start accelerate launch") != std::string::npos);
  // One process per machine runs the script in place (simple_launcher): like srun python.
  const AuditResult single = run(head + "srun accelerate launch --num_processes 1 train.py\n");
  CHECK(with_rule(single, "audit.torchrun_tasks_per_node").empty());
}
