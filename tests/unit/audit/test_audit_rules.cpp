// Every audit finding, triggered by a small script, with its line asserted;
// and a clean script that yields nothing.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

// A clean Megatron-LM job: 2 nodes x 8 H100, TP4 PP2 SP, torchrun per node.
const char* const k_clean = R"(#!/bin/bash
#SBATCH --job-name=gpt
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8 --cpus-per-task=64
#SBATCH --signal=TERM@120
set -euo pipefail

export CUDA_DEVICE_MAX_CONNECTIONS=1
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)

GPT_ARGS=(
  --tensor-model-parallel-size 4
  --pipeline-model-parallel-size 2
  --num-layers-per-virtual-pipeline-stage 4
  --sequence-parallel
  --num-layers 32 --hidden-size 4096 --num-attention-heads 32
  --seq-length 4096 --max-position-embeddings 4096
  --micro-batch-size 1 --global-batch-size 64
  --use-distributed-optimizer --bf16 --exit-signal-handler
  --swiglu --normalization RMSNorm --position-embedding-type rope --disable-bias-linear
  --untie-embeddings-and-output-weights --group-query-attention --num-query-groups 8
  --vocab-size 128256 --attention-dropout 0 --hidden-dropout 0
)

srun --ntasks-per-node=1 python -m torch.distributed.run \
  --nnodes "$SLURM_JOB_NUM_NODES" --nproc_per_node 8 \
  --rdzv_backend c10d --rdzv_endpoint "$MASTER_ADDR:29500" --rdzv_id "$SLURM_JOB_ID" \
  pretrain_gpt.py "${GPT_ARGS[@]}" --data-path "$DATA" --save "$CKPT" --load "$CKPT"
)";

std::string replace(std::string text, const std::string& from, const std::string& to)
{
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

} // namespace

TEST_CASE("a clean script has no warnings or errors")
{
  const AuditResult r = run(k_clean);
  for (const auto& f : r.findings) {
    CHECK_MESSAGE(f.diagnostic.severity == lg::Severity::advice, describe(r));
  }
  CHECK(with_rule(r, "audit.memory_unknown").empty());
}

TEST_CASE("CUDA_DEVICE_MAX_CONNECTIONS missing with TP under Megatron-LM is an error at the launch line")
{
  const AuditResult r = run(replace(k_clean, "export CUDA_DEVICE_MAX_CONNECTIONS=1\n", ""));
  const auto found = with_rule(r, "env.cuda_device_max_connections_tp_cp");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(line_of(found[0]) == 26);
  CHECK(!found[0]->edits.empty());
}

TEST_CASE("CUDA_DEVICE_MAX_CONNECTIONS=1 under FSDP is an error at the export")
{
  const AuditResult r = run(replace(k_clean, "--use-distributed-optimizer", "--use-distributed-optimizer --use-megatron-fsdp"));
  const auto found = with_rule(r, "env.cuda_device_max_connections_fsdp");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 9);
  CHECK(found[0]->diagnostic.fix.find("CUDA_DEVICE_MAX_CONNECTIONS=") != std::string::npos);
}

TEST_CASE("CUDA_DEVICE_MAX_CONNECTIONS on Blackwell is not required to be 1")
{
  AuditOptions options = h100_options();
  options.gpu = lg::testing::gpu("b200");
  const AuditResult r = run(replace(k_clean, "export CUDA_DEVICE_MAX_CONNECTIONS=1\n", ""), options);
  CHECK(with_rule(r, "env.cuda_device_max_connections_tp_cp").empty());
}

TEST_CASE("expandable_segments next to NCCL user buffers")
{
  const AuditResult r = run(replace(k_clean, "--bf16", "--bf16 --use-nccl-ub"));
  const auto found = with_rule(r, "env.nccl_ub_expandable_segments");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 10);
}

TEST_CASE("transformer_engine CUDA graphs with expandable segments need NCCL_GRAPH_REGISTER=0")
{
  const AuditResult r = run(replace(k_clean, "--bf16", "--bf16 --cuda-graph-impl transformer_engine"));
  const auto found = with_rule(r, "env.nccl_graph_register");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(line_of(found[0]) == 27);
}

TEST_CASE("PYTORCH_ALLOC_CONF instead of PYTORCH_CUDA_ALLOC_CONF")
{
  const AuditResult r = run(replace(k_clean, "export PYTORCH_CUDA_ALLOC_CONF", "export PYTORCH_ALLOC_CONF"));
  const auto found = with_rule(r, "env.pytorch_alloc_conf_name");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 10);
}

TEST_CASE("check rules land on the script word: CPU offloading with PP>1, VPP divisibility, world size")
{
  const AuditResult offload = run(replace(k_clean, "--bf16", "--bf16 --cpu-offloading-num-layers 2"));
  REQUIRE(!with_rule(offload, "offload.cpu_offloading_with_pp").empty());
  CHECK(line_of(with_rule(offload, "offload.cpu_offloading_with_pp")[0]) == 15);

  const AuditResult vpp = run(replace(k_clean, "--num-layers 32", "--num-layers 36"));
  REQUIRE(!with_rule(vpp, "pipeline.vpp_layers_divisible").empty());

  const AuditResult world = run(replace(k_clean, "--nproc_per_node 8", "--nproc_per_node 6"));
  const auto found = with_rule(world, "parallelism.world_size");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 28);
  CHECK(!with_rule(world, "audit.gpus_mismatch").empty());
}

TEST_CASE("an unknown parallel size silences the rules that need it")
{
  const AuditResult r = run(replace(k_clean, "--tensor-model-parallel-size 4", "--tensor-model-parallel-size $1"));
  CHECK(with_rule(r, "env.cuda_device_max_connections_tp_cp").empty());
  CHECK(with_rule(r, "parallelism.world_size").empty());
  bool listed = false;
  for (const auto& key : r.unknown) {
    listed = listed || key == "parallelism.tp";
  }
  CHECK(listed);
}

TEST_CASE("unknown model dimensions: memory is not estimated, said as advice")
{
  const AuditResult r = run(replace(k_clean, "--num-layers 32 --hidden-size 4096", "--num-layers $LAYERS --hidden-size 4096"));
  REQUIRE(with_rule(r, "audit.memory_unknown").size() == 1);
  CHECK(with_rule(r, "audit.memory_unknown")[0]->diagnostic.message.find("model.num_layers") != std::string::npos);
}

TEST_CASE("export after the launch line")
{
  const AuditResult r = run(std::string(k_clean) + "export NCCL_DEBUG=INFO\n");
  const auto found = with_rule(r, "audit.export_after_launch");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 31);
  CHECK(found[0]->edits.size() == 2);
}

TEST_CASE("runtime variable assigned but not exported")
{
  const AuditResult r = run(replace(k_clean, "set -euo pipefail\n", "set -euo pipefail\nNCCL_DEBUG=WARN\n"));
  const auto found = with_rule(r, "audit.not_exported");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 8);
}

TEST_CASE("per-task variable expanded on the batch host")
{
  // Under a static rendezvous torchrun takes the rank from --node_rank (torch/distributed/run.py:
  // rdzv_configs["rank"] = node_rank only for "static"), so the batch host's value is wrong.
  const AuditResult r = run(replace(replace(k_clean, "--nproc_per_node 8", "--nproc_per_node 8 --node_rank $SLURM_NODEID"),
                                    "--rdzv_backend c10d", "--rdzv_backend static"));
  const auto found = with_rule(r, "audit.per_task_variable");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(line_of(found[0]) == 28);
  const AuditResult escaped = run(replace(
    k_clean, "srun --ntasks-per-node=1 python", "srun --ntasks-per-node=1 bash -c 'echo $SLURM_NODEID' ; srun python"));
  CHECK(with_rule(escaped, "audit.per_task_variable").empty());
  // No --nodes (a --nodelist instead) but 4 tasks per node: several tasks, an error
  // (the shape of a public `export RANK=$SLURM_PROCID` llama launcher).
  const AuditResult tasks = run("#!/bin/bash\n#SBATCH --nodelist=a1,a2\n#SBATCH --ntasks-per-node=4\n#SBATCH --gres=gpu:4\n"
                                "export RANK=$SLURM_PROCID\nsrun python -u -m llama.train\n");
  REQUIRE(with_rule(tasks, "audit.per_task_variable").size() == 1);
  CHECK(with_rule(tasks, "audit.per_task_variable")[0]->diagnostic.severity == lg::Severity::error);
}

TEST_CASE("torchrun with several tasks per node")
{
  const AuditResult r = run(replace(replace(k_clean, "#SBATCH --ntasks-per-node=1", "#SBATCH --ntasks-per-node=8"),
                                    "srun --ntasks-per-node=1 python", "srun python"));
  const auto found = with_rule(r, "audit.torchrun_tasks_per_node");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 4);
}

TEST_CASE("pyxis container without --container-env for the composed variables")
{
  const AuditResult r = run(replace(k_clean, "srun --ntasks-per-node=1 python", "srun --ntasks-per-node=1 --container-image=nvcr.io/nvidia/pytorch:25.01-py3 --container-env=NCCL_DEBUG python"));
  const auto found = with_rule(r, "audit.container_env");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("CUDA_DEVICE_MAX_CONNECTIONS") != std::string::npos);
  CHECK(!found[0]->edits.empty());
}

TEST_CASE("--signal: missing, or another signal than the handler's")
{
  const AuditResult missing = run(replace(k_clean, "#SBATCH --signal=TERM@120\n", ""));
  REQUIRE(with_rule(missing, "audit.signal").size() == 1);
  CHECK(line_of(with_rule(missing, "audit.signal")[0]) == 20);
  const AuditResult other = run(replace(k_clean, "--signal=TERM@120", "--signal=USR1@120"));
  REQUIRE(with_rule(other, "audit.signal").size() == 1);
  CHECK(line_of(with_rule(other, "audit.signal")[0]) == 6);
}

TEST_CASE("set -x around a secret, and a token written into the script")
{
  const AuditResult r = run(replace(k_clean, "set -euo pipefail\n", "set -euxo pipefail\nexport WANDB_API_KEY=0123456789abcdef0123\n"));
  REQUIRE(with_rule(r, "audit.xtrace_secret").size() == 1);
  REQUIRE(with_rule(r, "audit.secret_in_script").size() == 1);
  CHECK(line_of(with_rule(r, "audit.secret_in_script")[0]) == 8);
  const AuditResult from_file = run(replace(k_clean, "set -euo pipefail\n", "set -euo pipefail\nexport HF_TOKEN=$(cat ~/.hf)\n"));
  CHECK(with_rule(from_file, "audit.secret_in_script").empty());
  CHECK(with_rule(from_file, "audit.xtrace_secret").empty());
}

TEST_CASE("leftover placeholders")
{
  const AuditResult r = run(replace(k_clean, "#SBATCH --job-name=gpt", "#SBATCH --account=<your account>\n#SBATCH --job-name=gpt")
                            + "DATA=/path/to/data\n");
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 2);
  CHECK(line_of(found[0]) == 2);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(line_of(found[1]) == 32);
}

TEST_CASE("a placeholder in a setup command is found like one on the launch line: conda activate YOUR_ENV")
{
  // conda activate takes an environment name or prefix path (conda docs, "Activating an environment");
  // YOUR_… and …PATH_TO_… are the same shapes the launch line and assignments are read with.
  const AuditResult r = run("#!/bin/bash\nconda activate YOUR_PYTORCH_ENV\ncd FULL_PATH_TO_CONDA/run\n"
                            "echo \"set YOUR_ENV first\"\nsrun python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 2);  // not the echo line: printed prose
  CHECK(line_of(found[0]) == 2);
  CHECK(line_of(found[1]) == 3);
}

TEST_CASE("a secret-named variable holding a stand-in (xxx) and a your-… value are placeholders, not secrets")
{
  // The shape of `export WANDB_API_KEY=xxx` in EleutherAI/math-lm task-finetunes/slurm/template.sh.
  const AuditResult r = run(replace(k_clean, "set -euo pipefail\n", "set -euo pipefail\nexport WANDB_API_KEY=xxx\n"));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 8);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(with_rule(r, "audit.secret_in_script").empty());
  // Not a secret name: "xxx" is somebody's value, not read.
  CHECK(with_rule(run(replace(k_clean, "set -euo pipefail\n", "set -euo pipefail\nSUFFIX=xxx\n")), "audit.placeholder").empty());
  // Two letters are not a filler.
  CHECK(with_rule(run(replace(k_clean, "set -euo pipefail\n", "set -euo pipefail\nexport HF_TOKEN=xx\n")), "audit.placeholder").empty());
  const AuditResult dash = run(replace(k_clean, "#SBATCH --job-name=gpt", "#SBATCH --partition=your-partition\n#SBATCH --job-name=gpt"));
  REQUIRE(with_rule(dash, "audit.placeholder").size() == 1);
  CHECK(with_rule(dash, "audit.placeholder")[0]->diagnostic.message.find("your-partition") != std::string::npos);
  // "YourOwnWandbAPIKey" (a public Megatron-LM docker launcher) is one too; "yourself" is a word.
  CHECK(with_rule(run(replace(k_clean, "set -euo pipefail\n", "set -euo pipefail\nexport WANDB_API_KEY=YourOwnWandbAPIKey\n")),
                  "audit.placeholder")
          .size() == 1);
  CHECK(with_rule(run(replace(k_clean, "set -euo pipefail\n", "set -euo pipefail\nNOTE=yourself\n")), "audit.placeholder").empty());
  // A value in capitals that names its own option (a public Megatron-DeepSpeed
  // template's --partition=PARTITION_NAME; --account ACCOUNT): an error, sbatch passes it on.
  const AuditResult named = run(replace(k_clean, "#SBATCH --job-name=gpt",
                                        "#SBATCH --partition=PARTITION_NAME\n#SBATCH --account ACCOUNT\n#SBATCH --job-name=gpt"));
  const auto own = with_rule(named, "audit.placeholder");
  REQUIRE(own.size() == 2);
  CHECK(own[0]->diagnostic.severity == lg::Severity::error);
  CHECK(own[0]->diagnostic.message.find("PARTITION_NAME") != std::string::npos);
  CHECK(own[1]->diagnostic.message.find("ACCOUNT") != std::string::npos);
  // A partition in capitals that is a name, not the option's: not judged.
  CHECK(with_rule(run(replace(k_clean, "#SBATCH --job-name=gpt", "#SBATCH --partition=GPU_H100\n#SBATCH --job-name=gpt")),
                  "audit.placeholder")
          .empty());
  // PATH_TO_CONFIG in a launch argument: one placeholder, named as written.
  const AuditResult path_result = run(replace(k_clean, "--bf16", "--bf16 --config ../configs/PATH_TO_CONFIG.yaml"));
  const auto path_to = with_rule(path_result, "audit.placeholder");
  REQUIRE(path_to.size() == 1);
  CHECK(path_to[0]->diagnostic.message.find("PATH_TO_CONFIG") != std::string::npos);
}

TEST_CASE("debugging switches left on in the job: CUDA_LAUNCH_BLOCKING=1, PYTORCH_NO_CUDA_MEMORY_CACHING=1")
{
  // bigscience tr11-176B-ml.slurm exports CUDA_LAUNCH_BLOCKING=1 in its production run.
  const AuditResult r = run(replace(k_clean, "set -euo pipefail\n", "set -euo pipefail\nexport CUDA_LAUNCH_BLOCKING=1\n"));
  const auto found = with_rule(r, "env.debug_setting");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 8);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(with_rule(run(replace(k_clean, "set -euo pipefail\n", "set -euo pipefail\nexport CUDA_LAUNCH_BLOCKING=0\n")), "env.debug_setting").empty());
  CHECK(with_rule(run(replace(k_clean, "set -euo pipefail\n", "set -euo pipefail\nexport PYTORCH_NO_CUDA_MEMORY_CACHING=1\n")), "env.debug_setting").size() == 1);
}

TEST_CASE("node count written in the directives and in the launcher")
{
  const AuditResult same = run(replace(k_clean, "--nnodes \"$SLURM_JOB_NUM_NODES\"", "--nnodes 2"));
  REQUIRE(with_rule(same, "audit.nodes_duplicated").size() == 1);
  CHECK(with_rule(same, "audit.nodes_duplicated")[0]->diagnostic.severity == lg::Severity::advice);
  const AuditResult differs = run(replace(k_clean, "--nnodes \"$SLURM_JOB_NUM_NODES\"", "--nnodes 4"));
  REQUIRE(with_rule(differs, "audit.nodes_duplicated").size() == 1);
  CHECK(with_rule(differs, "audit.nodes_duplicated")[0]->diagnostic.severity == lg::Severity::error);
  CHECK(line_of(with_rule(differs, "audit.nodes_duplicated")[0]) == 28);
}

TEST_CASE("--output into a directory that does not exist")
{
  AuditOptions options = h100_options();
  options.directory_exists = [](const std::string& dir) { return dir != "logs"; };
  const AuditResult r = run(replace(k_clean, "#SBATCH --job-name=gpt", "#SBATCH --job-name=gpt\n#SBATCH -o logs/%x-%j.out"), options);
  REQUIRE(with_rule(r, "audit.output_directory").size() == 1);
  CHECK(line_of(with_rule(r, "audit.output_directory")[0]) == 3);
}

TEST_CASE("directive after the first command")
{
  const AuditResult r = run(replace(k_clean, "set -euo pipefail\n", "set -euo pipefail\n#SBATCH --time=04:00:00\n"));
  REQUIRE(with_rule(r, "audit.directive_ignored").size() == 1);
  CHECK(line_of(with_rule(r, "audit.directive_ignored")[0]) == 8);
}

TEST_CASE("every #SBATCH line below the first command is one finding: one cause, one fix")
{
  // sbatch(1): directives are read only "before any executable commands"; a
  // script whose #SBATCH block follows DIR=`pwd` and mkdir loses all of them.
  const AuditResult r = run("#!/bin/bash\nDIR=`pwd`\nmkdir -p $DIR/logs\n#SBATCH --nodes=1\n#SBATCH --gres=gpu:8\n\n"
                            "#SBATCH --exclusive\nsrun python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.directive_ignored");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 4);
  const std::string& message = found[0]->diagnostic.message;
  CHECK(message.find("3 #SBATCH lines come after the first command (line 2)") != std::string::npos);
  CHECK(message.find("(--nodes, --gres, --exclusive;") != std::string::npos);
  CHECK(message.find("also on lines 5, 7") != std::string::npos);
}

TEST_CASE("malformed Megatron argument")
{
  const AuditResult r = run(replace(k_clean, "--micro-batch-size 1", "--micro-batch-size one"));
  REQUIRE(with_rule(r, "audit.megatron_args").size() == 1);
  CHECK(line_of(with_rule(r, "audit.megatron_args")[0]) == 20);
}

TEST_CASE("scripts that are not Megatron-LM jobs only get hygiene findings")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 1\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\nsrun python train.py --config cfg.yaml\n");
  CHECK(r.findings.empty());
}
