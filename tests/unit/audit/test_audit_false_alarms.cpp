// Patterns that produced false alarms on public launch scripts nobody here
// had tuned for (issue 13). Each script is synthetic: it reproduces the
// pattern (a Megatron-DeepSpeed launch, a placeholder used on many lines,
// torchrun under a c10d rendezvous …), not any one script.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

bool any_severity(const AuditResult& r, lg::Severity s)
{
  for (const auto& f : r.findings) {
    if (f.diagnostic.severity == s) {
      return true;
    }
  }
  return false;
}

} // namespace

TEST_CASE("Megatron-DeepSpeed: memory not judged (ZeRO), no Megatron-LM layout or VPP advice")
{
  // --pp-partition-method lets DeepSpeed's PipelineModule place 70 layers on
  // 12 stages (Megatron-DeepSpeed megatron/model/gpt_model.py, PipelineModule
  // partition_method), so layers % pp is not a rule there.
  const AuditResult r = run(R"(#SBATCH --nodes=48
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
srun torchrun --nproc_per_node 8 --nnodes 48 pretrain_gpt.py --tensor-model-parallel-size 4 \
  --pipeline-model-parallel-size 12 --num-layers 70 --hidden-size 14336 --num-attention-heads 112 \
  --seq-length 2048 --micro-batch-size 2 --global-batch-size 2048 --deepspeed --zero-stage 0 \
  --pp-partition-method 'type:transformer|embedding'
)");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "memory.oom").empty());
  CHECK(with_rule(r, "parallelism.layers_divisible_by_pp").empty());
  CHECK(with_rule(r, "pipeline.pp_without_vpp").empty());
  CHECK(with_rule(r, "sequence_parallel.recommended_with_tp").empty());
  const auto memory = with_rule(r, "audit.memory_unknown");
  REQUIRE(memory.size() == 1);
  CHECK(memory[0]->diagnostic.message.find("memory not judged") == 0);
  CHECK(memory[0]->diagnostic.severity == lg::Severity::advice);
}

TEST_CASE("a flag the estimator does not model gives 'memory not judged', never an OOM error")
{
  const AuditResult r = run(R"(#SBATCH --nodes=1
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
srun python pretrain_vlm.py --tensor-model-parallel-size 1 --num-layers 80 --hidden-size 8192 \
  --num-attention-heads 64 --seq-length 8192 --micro-batch-size 4 --global-batch-size 32 --freeze-LM
)");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "memory.oom").empty());
  const auto memory = with_rule(r, "audit.memory_unknown");
  REQUIRE(memory.size() == 1);
  CHECK(memory[0]->diagnostic.message.find("does not model") != std::string::npos);
}

TEST_CASE("a missing --global-batch-size is Megatron's default MBS x DP, not 1")
{
  // megatron/training/arguments.py: global_batch_size = micro_batch_size * data_parallel_size when unset.
  const AuditResult r = run(R"(#SBATCH --nodes=2
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
export CUDA_DEVICE_MAX_CONNECTIONS=1
srun python pretrain_gpt.py --tensor-model-parallel-size 2 --num-layers 8 --hidden-size 1024 \
  --num-attention-heads 16 --micro-batch-size 4 --sequence-parallel
)");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "parallelism.gbs_divisible").empty());
  CHECK(with_rule(r, "parallelism.batch_positive").empty());
}

TEST_CASE("a rule never reads a value the audit lists as unknown (: \"${TP:=8}\" in a branch)")
{
  const AuditResult r = run(R"(#SBATCH --nodes=2
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
if [ "$MODEL" = big ]; then
  : "${TP:=8}"
else
  : "${TP:=4}"
fi
export CUDA_DEVICE_MAX_CONNECTIONS=1
srun python pretrain_gpt.py --tensor-model-parallel-size $TP --num-layers 8 --hidden-size 1024 \
  --num-attention-heads 16 --micro-batch-size 1 --global-batch-size 64
)");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "optimizer.distributed_optimizer_off").empty());
  CHECK(with_rule(r, "sequence_parallel.disabled_without_tp").empty());
}

TEST_CASE("one placeholder is one finding listing the lines that use it")
{
  const AuditResult r = run(R"(#!/bin/bash
#SBATCH --job-name=__JOB_NAME__
#SBATCH --output=__OUTPUT_DIR__/out.txt
#SBATCH --error=__OUTPUT_DIR__/err.txt
#SBATCH --partition=your_partition
srun --container-mounts=__OUTPUT_DIR__/x:/x python train.py
)");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 3);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);  // a job name Slurm accepts as written
  CHECK(found[1]->diagnostic.message.find("__OUTPUT_DIR__") != std::string::npos);
  CHECK(found[1]->diagnostic.message.find("lines 4, 6") != std::string::npos);
  CHECK(found[1]->diagnostic.severity == lg::Severity::error);
  CHECK(found[2]->diagnostic.message.find("your_partition") != std::string::npos);
  CHECK(with_rule(r, "audit.output_directory").empty());
}

TEST_CASE("--output directory: created before a self-submission is fine; absolute paths are the cluster's")
{
  AuditOptions options = h100_options();
  options.directory_exists = [](const std::string&) { return false; };
  const AuditResult self = run(R"(#!/bin/bash
#SBATCH --output=logs/%j.out
if [ -z "$SLURM_JOB_ID" ]; then
  mkdir -p logs
  sbatch "$0"
  exit
fi
srun python train.py
)", options);
  CHECK(with_rule(self, "audit.output_directory").empty());
  const AuditResult absolute = run("#!/bin/bash\n#SBATCH --output=/root/job/%j.out\nsrun python train.py\n", options);
  CHECK(with_rule(absolute, "audit.output_directory").empty());
  const AuditResult late = run("#!/bin/bash\n#SBATCH --output=logs/%j.out\nmkdir -p logs\nsrun python train.py\n", options);
  const auto found = with_rule(late, "audit.output_directory");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("mkdir on line 3 runs only after") != std::string::npos);
}

TEST_CASE("torchrun --node_rank from the batch host is harmless under a c10d rendezvous")
{
  const AuditResult r = run(R"(#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
srun torchrun --nproc_per_node 8 --nnodes 2 --node_rank=$SLURM_NODEID --rdzv_backend c10d \
  --rdzv_endpoint host:29500 train.py
)");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.per_task_variable").empty());
  // The same option as two words (`--node_rank $SLURM_NODEID`) is the same value.
  const AuditResult spaced = run(R"(#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
srun torchrun --nproc_per_node 8 --nnodes 2 --node_rank $SLURM_NODEID --rdzv_backend c10d \
  --rdzv_endpoint host:29500 train.py
)");
  CAPTURE(describe(spaced));
  CHECK(with_rule(spaced, "audit.per_task_variable").empty());
}

TEST_CASE("a file sourced inside the task's shell may set the environment: no 'not set' error")
{
  const AuditResult r = run(R"(#SBATCH -N 1
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
srun bash -c "source /results/env_vars.sh; python pretrain_gpt.py --tensor-model-parallel-size 2 --num-layers 8 --hidden-size 1024 --num-attention-heads 16 --micro-batch-size 1 --global-batch-size 8"
)");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "env.cuda_device_max_connections_tp_cp").empty());
}

TEST_CASE("a program that only takes Megatron flags may be a wrapper: process count unknown, no world-size error")
{
  const AuditResult r = run(R"(#!/bin/bash
#SBATCH -N 1
#SBATCH --gpus-per-node=8
export CUDA_DEVICE_MAX_CONNECTIONS=1
srun -N1 python run.py --tensor-model-parallel-size 2 --num-layers 8 --hidden-size 1024 --num-attention-heads 16 \
  --micro-batch-size 1 --global-batch-size 8
)");
  CAPTURE(describe(r));
  CHECK_FALSE(any_severity(r, lg::Severity::error));
  CHECK(with_rule(r, "audit.gpus_mismatch").empty());
}

namespace {

// 70B at seq 8192, MBS 2, TP 4 PP 8, no recompute: above 80 GB.
std::string tight_70b(int nodes, int gpus_per_node)
{
  return "#SBATCH --nodes=" + std::to_string(nodes) + "\n#SBATCH --ntasks-per-node=" + std::to_string(gpus_per_node)
         + "\n#SBATCH --gpus-per-node=" + std::to_string(gpus_per_node) + "\n" + R"(srun python pretrain_gpt.py --tensor-model-parallel-size 4 --pipeline-model-parallel-size 8 \
  --num-layers 80 --hidden-size 8192 --ffn-hidden-size 28672 --num-attention-heads 64 --group-query-attention \
  --num-query-groups 8 --seq-length 8192 --max-position-embeddings 8192 --micro-batch-size 2 \
  --global-batch-size 1024 --bf16 --sequence-parallel --use-distributed-optimizer --swiglu
)";
}

} // namespace

TEST_CASE("an OOM against an assumed GPU is a warning that says so; against the named GPU, an error")
{
  const std::string script = tight_70b(16, 8);
  AuditOptions assumed = h100_options();
  assumed.gpu_assumed = true;
  const AuditResult guessed = run(script, assumed);
  CAPTURE(describe(guessed));
  const auto oom = with_rule(guessed, "memory.oom");
  REQUIRE(oom.size() == 1);
  CHECK(oom[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(oom[0]->diagnostic.message.find("the GPU is assumed") != std::string::npos);
  // Advice that fires only because memory is tight on the assumed GPU is dropped.
  CHECK(with_rule(guessed, "advice.avoid_tp_increase").empty());
  const AuditResult named = run(script);
  const auto oom_named = with_rule(named, "memory.oom");
  REQUIRE(oom_named.size() == 1);
  CHECK(oom_named[0]->diagnostic.severity == lg::Severity::error);
  CHECK(with_rule(named, "advice.avoid_tp_increase").size() == 1);
}

TEST_CASE("nodes of 4 GPUs and no GPU named: memory not judged against the 8-GPU default board")
{
  // The shape of a public Llama3-70B script for 4-GPU nodes (swiss-ai/Megatron-LM
  // submit-llama3-70b.sh, CSCS GH200) that names no GPU: it ran, on 96 GB GPUs.
  const std::string script = tight_70b(32, 4);
  AuditOptions assumed = h100_options();
  assumed.gpu_assumed = true;
  const AuditResult guessed = run(script, assumed);
  CAPTURE(describe(guessed));
  CHECK(with_rule(guessed, "memory.oom").empty());
  const auto unknown = with_rule(guessed, "audit.memory_unknown");
  REQUIRE(unknown.size() == 1);
  CHECK(unknown[0]->diagnostic.message.find("nodes have 4 GPUs") != std::string::npos);
  // A GPU the script names but no preset fits (GH200, an AMD GPU, "a100" with
  // no memory size; gpu_from_script says why): not judged either, and the why is said.
  AuditOptions unmatched = h100_options();
  unmatched.gpu_assumed = true;
  unmatched.gpu_unmatched = "a100 (#SBATCH --partition=gpu-a100): the name states no memory size";
  const AuditResult unmatched_result = run(tight_70b(16, 8), unmatched);
  const auto why = with_rule(unmatched_result, "audit.memory_unknown");
  REQUIRE(why.size() == 1);
  CHECK(why[0]->diagnostic.message.find(unmatched.gpu_unmatched) != std::string::npos);
  CHECK(with_rule(unmatched_result, "memory.oom").empty());
  // Named: judged.
  CHECK(with_rule(run(script), "memory.oom").size() == 1);
}

TEST_CASE("pp without VPP is not advised when the layer count is unknown: its fix would list made-up sizes")
{
  // MindSpeed-MM reads num_layers from its model JSON with `python -c`; the
  // advice's fix lists the VPP sizes dividing the layers per pipeline rank
  // (Megatron-LM transformer_config.py: layers per rank % vpp == 0).
  const std::string tail = " --pipeline-model-parallel-size 2 --hidden-size 512 --num-attention-heads 8 "
                           "--seq-length 1024 --max-position-embeddings 1024 --micro-batch-size 1 "
                           "--global-batch-size 16 --bf16\n";
  const AuditResult unknown = run("#!/bin/bash\nNUM_LAYERS=$(python -c \"print(24)\")\n"
                                  "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers ${NUM_LAYERS}"
                                  + tail);
  CAPTURE(describe(unknown));
  CHECK(with_rule(unknown, "pipeline.pp_without_vpp").empty());
  const AuditResult known = run("#!/bin/bash\ntorchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 24" + tail);
  CAPTURE(describe(known));
  CHECK(with_rule(known, "pipeline.pp_without_vpp").size() == 1);
}

TEST_CASE("a quoted unknown array \"${ARGS[@]}\" may hold any flags: no verdict on the defaults it could override")
{
  // "${NAME[@]}" expands to one word per element (bash(1), Arrays); an array
  // set in a sourced file (MODEL_ARGS with --num-experts) is unknown here.
  const std::string script =
    "#!/bin/bash\nsource model_config.sh\nPERF_ARGS=(--tensor-model-parallel-size 8 --expert-model-parallel-size 16)\n"
    "torchrun --nproc_per_node 8 pretrain_gpt.py \"${MODEL_ARGS[@]}\" \"${PERF_ARGS[@]}\"\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "moe.ep_requires_experts").empty());
  // After a flag that is not Megatron's (a wrapper's own --use-health-check)
  // the array is still a list of words, not that flag's value.
  const AuditResult after_flag =
    run("#!/bin/bash\nPERF_ARGS=(--expert-model-parallel-size 16 --balance-data)\n"
        "python3 -m relax.entrypoints.train --use-health-check ${MODEL_ARGS[@]} \"${PERF_ARGS[@]}\" "
        "--attention-backend flash\n");
  CAPTURE(describe(after_flag));
  CHECK(with_rule(after_flag, "moe.ep_requires_experts").empty());
  // The same array kept in a string first, then split.
  const AuditResult through =
    run("#!/bin/bash\nPERF_ARGS=(--expert-model-parallel-size 16 --balance-data)\nARGS=\"${MODEL_ARGS[@]}\"\n"
        "python3 -m relax.entrypoints.train --use-health-check $ARGS \"${PERF_ARGS[@]}\" --attention-backend flash\n");
  CAPTURE(describe(through));
  CHECK(with_rule(through, "moe.ep_requires_experts").empty());
  // Written out, the model without experts is known and the error stands.
  const AuditResult known = run("#!/bin/bash\ntorchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 4 "
                                "--hidden-size 512 --num-attention-heads 8 --seq-length 1024 "
                                "--max-position-embeddings 1024 --micro-batch-size 1 --global-batch-size 8 "
                                "--tensor-model-parallel-size 8 --expert-model-parallel-size 16\n");
  CAPTURE(describe(known));
  CHECK(with_rule(known, "moe.ep_requires_experts").size() == 1);
}

TEST_CASE("a job on a CPU partition that asks for no GPU gets no memory verdict or advice")
{
  // Megatron Bridge's gpt_oss pack_data_job.sh: `--partition=cpu`, no --gres,
  // pack_sft_data.py with a recipe's flags; no GPU memory to judge.
  const std::string tail = "torchrun --nproc_per_node 1 pretrain_gpt.py --num-layers $1 --hidden-size 512 "
                           "--num-attention-heads 8 --seq-length 1024 --max-position-embeddings 1024 "
                           "--micro-batch-size 1 --global-batch-size 8 --bf16\n";
  const AuditResult cpu = run("#!/bin/bash\n#SBATCH --partition=cpu\n#SBATCH --nodes=1\n" + tail);
  CAPTURE(describe(cpu));
  CHECK(with_rule(cpu, "audit.memory_unknown").empty());
  // A GPU partition, or a CPU-named partition with GPUs asked for, keeps it.
  const AuditResult gpu = run("#!/bin/bash\n#SBATCH --partition=gpu\n#SBATCH --nodes=1\n" + tail);
  CHECK(with_rule(gpu, "audit.memory_unknown").size() == 1);
  const AuditResult asked = run("#!/bin/bash\n#SBATCH --partition=cpu\n#SBATCH --gres=gpu:1\n" + tail);
  CHECK(with_rule(asked, "audit.memory_unknown").size() == 1);
}

TEST_CASE("--fake-process-group: one process stands for WORLD_SIZE ranks, so no world-size verdict on the launch")
{
  // Megatron-LM megatron/training/arguments.py --fake-process-group: "quite
  // useful for profiling memory usage of distributed training with just one
  // GPU. Setting WORLD_SIZE and RANK to the specific values for target
  // distributed scale"; initialize.py uses torch's fake backend.
  const std::string tail = "python pretrain_gpt.py --tensor-model-parallel-size 4 --pipeline-model-parallel-size 8 "
                           "--expert-model-parallel-size 8 --num-experts 128 --num-layers 96 --hidden-size 4096 "
                           "--num-attention-heads 64 --seq-length 4096 --max-position-embeddings 4096 "
                           "--micro-batch-size 1 --global-batch-size 256 --bf16";
  const AuditResult fake =
    run("#!/bin/bash\nexport WORLD_SIZE=256\nexport RANK=0\n" + tail + " --fake-process-group\n");
  CAPTURE(describe(fake));
  CHECK(with_rule(fake, "parallelism.world_size").empty());
  CHECK(with_rule(fake, "parallelism.expert_world_size").empty());
  const AuditResult real = run("#!/bin/bash\n" + tail + "\n");
  CAPTURE(describe(real));
  CHECK(with_rule(real, "parallelism.world_size").size() == 1);
}

TEST_CASE("a path below a placeholder is that placeholder used, not another one")
{
  // MEGATRON_DIR=/path/to/Megatron-LM, then $MEGATRON_DIR/pretrain_gpt.py.
  const AuditResult r = run("#!/bin/bash\nMEGATRON_DIR=/path/to/Megatron-LM\n"
                            "torchrun --nproc_per_node 8 $MEGATRON_DIR/pretrain_gpt.py --save /path/to/checkpoints\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 2);
  for (const auto* f : found) {
    CHECK(f->diagnostic.message.find("pretrain_gpt.py") == std::string::npos);
  }
}
