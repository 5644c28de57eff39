// Launch shapes the script reader follows as bash runs them (issue 13): the
// `${VAR:=default}` assignment (bash(1), Parameter Expansion: "the value of
// parameter is then substituted" after it is assigned), ft_launcher
// (NVIDIA nvidia-resiliency-ext, torchrun's options plus --ft-*),
// apptainer/singularity exec options before the image (apptainer CLI docs),
// and arrays that do not hold what was meant (bash(1), Arrays, Word
// Splitting). Each script is synthetic.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const char* const k_megatron_args =
  "pretrain_gpt.py --tensor-model-parallel-size $TP --num-layers 8 --hidden-size 1024 --num-attention-heads 16 "
  "--micro-batch-size 1 --global-batch-size 8\n";

} // namespace

TEST_CASE("wrappers: `: \"${TP:=4}\"` assigns TP, so the launch line's TP is 4, not unknown")
{
  const AuditResult r = run(std::string("#SBATCH -N 1\n#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-node=8\n"
                                        ": \"${TP:=4}\"\ntorchrun --nproc_per_node 8 ")
                            + k_megatron_args);
  CAPTURE(describe(r));
  const auto cdmc = with_rule(r, "env.cuda_device_max_connections_tp_cp");
  REQUIRE(cdmc.size() == 1);
  CHECK(cdmc[0]->diagnostic.message.find("TP=4") != std::string::npos);
  CHECK(std::find(r.unknown.begin(), r.unknown.end(), "parallelism.tp") == r.unknown.end());
  // Set before (the submit environment is not the script's): TP=2 wins over the default.
  const AuditResult set = run(std::string("TP=2\n: \"${TP:=4}\"\ntorchrun --nproc_per_node 8 ") + k_megatron_args);
  CAPTURE(describe(set));
  const auto cdmc2 = with_rule(set, "env.cuda_device_max_connections_tp_cp");
  REQUIRE(cdmc2.size() == 1);
  CHECK(cdmc2[0]->diagnostic.message.find("TP=2") != std::string::npos);
}

TEST_CASE("wrappers: ft_launcher reads as torchrun (per-node processes under srun)")
{
  // torchrun_tasks_per_node: 8 srun tasks per node would each start
  // --nproc-per-node 8 workers.
  const AuditResult r = run(std::string("#SBATCH -N 2\n#SBATCH --ntasks-per-node=8\n#SBATCH --gpus-per-node=8\nTP=2\n"
                                        "export CUDA_DEVICE_MAX_CONNECTIONS=1\n"
                                        "srun ft_launcher --ft-param-rank_heartbeat_timeout=60 --nnodes 2 --nproc-per-node 8 "
                                        "--rdzv-backend c10d --rdzv-endpoint host:29500 ")
                            + k_megatron_args);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.torchrun_tasks_per_node").size() == 1);
  CHECK(with_rule(r, "audit.no_launch").empty());
}

TEST_CASE("wrappers: apptainer exec --nv -B SRC:DST IMAGE runs the program after the image")
{
  const AuditResult r = run(std::string("#SBATCH -N 1\n#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-node=8\nTP=2\n"
                                        "srun apptainer exec --nv -B /data:/data --cleanenv image.sif torchrun --nproc_per_node 8 ")
                            + k_megatron_args);
  CAPTURE(describe(r));
  // The Megatron job was read: TP=2 without CUDA_DEVICE_MAX_CONNECTIONS.
  CHECK(with_rule(r, "env.cuda_device_max_connections_tp_cp").size() == 1);
}

TEST_CASE("arrays: a `\\ #` comment inside ( … ) is an error on its line")
{
  const AuditResult r = run("ARGS=(\n  --tensor-model-parallel-size 2 \\ # tensor parallel\n  --micro-batch-size 1\n)\n"
                            "torchrun --nproc_per_node 8 pretrain_gpt.py \"${ARGS[@]}\"\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.array_comment");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 2);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  // A comment on its own line (or after a plain newline) is a comment.
  CHECK(with_rule(run("ARGS=(\n  --micro-batch-size 1 # fine\n  # fine too\n)\n"), "audit.array_comment").empty());
  CHECK(with_rule(r, "audit.comment_continuation").empty());
}

TEST_CASE("commands: a `\\ #` comment makes arguments of its words and cuts the continuation")
{
  // The shape of a public accelerate launcher: `--num_processes=4 \ # This is the total …`
  // then `--main_process_ip=… \` on the next line (bash(1), QUOTING: a backslash quotes the next character).
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=1\naccelerate launch \\\n--multi_gpu \\\n"
                            "--num_processes=4 \\ # total GPUs\n--main_process_ip=\"$HEAD\" \\\ntrain.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.comment_continuation");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 5);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[0]->diagnostic.message.find("line 6 (`--main_process_ip`") != std::string::npos);
  // A comment after a plain space is a comment.
  CHECK(with_rule(run("#!/bin/bash\nsrun python train.py --lr 1 # learning rate\n"), "audit.comment_continuation").empty());
}

TEST_CASE("arrays: hosts from a quoted $(scontrol show hostnames) are one element")
{
  const AuditResult r = run("HOSTS=( \"$(scontrol show hostnames \"$SLURM_JOB_NODELIST\")\" )\nexport MASTER_ADDR=${HOSTS[0]}\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.host_array_one_element");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 1);
  // Unquoted, the substitution is split into one element per host.
  CHECK(with_rule(run("HOSTS=( $(scontrol show hostnames \"$SLURM_JOB_NODELIST\") )\n"), "audit.host_array_one_element").empty());
}

TEST_CASE("words: an unquoted <placeholder> is an error (bash reads two redirections)")
{
  // bash(1) REDIRECTION: `<word` opens word for reading, `>word` for writing.
  const AuditResult r = run("torchrun --nproc_per_node 8 pretrain_gpt.py --data-path <PATH> --num-layers 8\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE_FALSE(found.empty());
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[0]->diagnostic.message.find("unquoted <PATH>") == 0);
  // Quoted, or a real redirection, it is no such thing.
  const AuditResult quoted = run("echo \"<PATH>\" > /dev/null\nsort < in.txt > out.txt\n");
  for (const auto* f : with_rule(quoted, "audit.placeholder")) {
    CHECK(f->diagnostic.message.find("unquoted") == std::string::npos);
  }
}

TEST_CASE("wrappers: model sizes from top-level defaults, parallel sizes from branches: memory not judged, never OOM")
{
  // TP/PP chosen per instance type inside if/else are unknown; the reader
  // would otherwise estimate Megatron's default TP=1 PP=1 (an OOM error on a job that fits).
  const AuditResult r = run(R"(#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
if [ "$INSTANCE" = p5 ]; then
  : "${TP:=4}"
else
  : "${TP:=8}"
fi
: "${LAYERS:=36}"
export CUDA_DEVICE_MAX_CONNECTIONS=1
srun torchrun --nnodes 2 --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size $TP --num-layers $LAYERS \
  --hidden-size 4096 --num-attention-heads 32 --seq-length 2048 --micro-batch-size 1 --global-batch-size 288
)");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "memory.oom").empty());
  const auto memory = with_rule(r, "audit.memory_unknown");
  REQUIRE(memory.size() == 1);
  CHECK(memory[0]->diagnostic.message.find("parallelism.tp") != std::string::npos);
}

TEST_CASE("wrappers: Megatron-DeepSpeed with TP > 1 and no CUDA_DEVICE_MAX_CONNECTIONS is not told Megatron-LM's assertion")
{
  // Megatron-DeepSpeed megatron/arguments.py has no CUDA_DEVICE_MAX_CONNECTIONS check
  // (Megatron-LM's is in megatron/training/arguments.py).
  const AuditResult r = run(std::string("#SBATCH -N 1\n#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-node=8\nTP=8\n"
                                        "torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size $TP "
                                        "--num-layers 8 --hidden-size 1024 --num-attention-heads 16 --deepspeed --zero-stage 1\n"));
  CAPTURE(describe(r));
  CHECK(with_rule(r, "env.cuda_device_max_connections_tp_cp").empty());
}
