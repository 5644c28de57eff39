// A verdict that depends on the GPU's capacity, judged against a GPU the
// script does not name. Round 19's CSCS MoE job (one node of 4 GPUs, the
// Container Engine's `#SBATCH --environment=`, no GPU named; CSCS Alps nodes
// carry GH200s with 96 GB each) got "close to the H100 80GB capacity" as a
// warning: the same peak is out of memory on an A100 40GB and comfortable on
// a GH200, so it is advice that says the capacity was assumed. An OOM on an
// assumed GPU is already a warning that says so (test_audit_false_alarms.cpp).
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

// The CSCS job's model and batch (MBS 50 at 512 tokens, 8 experts, top-3),
// which the estimator puts within a few percent of 80 GB.
const std::string k_near_capacity =
  "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=4\n#SBATCH --gpus-per-node=4\n"
  "srun python3 pretrain_gpt.py --num-layers 24 --hidden-size 768 --ffn-hidden-size 2048 "
  "--num-attention-heads 12 --group-query-attention --num-query-groups 4 --seq-length 512 "
  "--max-position-embeddings 512 --swiglu --untie-embeddings-and-output-weights --micro-batch-size 50 "
  "--global-batch-size 400 --bf16 --use-distributed-optimizer --num-experts 8 --moe-router-topk 3 "
  "--moe-grouped-gemm --tensor-model-parallel-size 1 --pipeline-model-parallel-size 1 "
  "--tokenizer-type HuggingFaceTokenizer --tokenizer-model alehc/swissai-tokenizer "
  "--transformer-impl transformer_engine --use-precision-aware-optimizer --main-grads-dtype bf16 "
  "--make-vocab-size-divisible-by 128 --normalization RMSNorm --cross-entropy-loss-fusion --disable-bias-linear "
  "--overlap-grad-reduce --overlap-param-gather --moe-router-load-balancing-type aux_loss "
  "--moe-aux-loss-coeff 0.1 --moe-z-loss-coeff 0.01\n";

}  // namespace

TEST_CASE("close to an assumed GPU's capacity: advice that names the assumption; on the named GPU, a warning")
{
  AuditOptions assumed = h100_options();
  assumed.gpu_assumed = true;
  const AuditResult guessed = run(k_near_capacity, assumed);
  CAPTURE(describe(guessed));
  const auto near = with_rule(guessed, "memory.borderline");
  REQUIRE(near.size() == 1);
  CHECK(near[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(near[0]->diagnostic.message.find("measured against the assumed GPU") != std::string::npos);

  const AuditResult named = run(k_near_capacity);
  const auto near_named = with_rule(named, "memory.borderline");
  REQUIRE(near_named.size() == 1);
  CHECK(near_named[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(near_named[0]->diagnostic.message.find("assumed") == std::string::npos);
}

// Megatron-LM asserts CUDA_DEVICE_MAX_CONNECTIONS=1 with TP > 1 only below
// compute capability 10 (megatron/training/arguments.py): on a GPU the script
// does not name, the assumed H100 decides it, so it is a warning that says so.
TEST_CASE("CUDA_DEVICE_MAX_CONNECTIONS unset with TP 2 on an assumed GPU: a warning naming the assumption")
{
  AuditOptions assumed = h100_options();
  assumed.gpu_assumed = true;
  const std::string script = "#!/bin/bash\n#SBATCH -N 1\n#SBATCH --ntasks-per-node=1 --cpus-per-task=64\n"
                             "srun torchrun --nproc-per-node=8 pretrain_gpt.py --tensor-model-parallel-size 2 "
                             "--num-layers 2 --hidden-size 256 --num-attention-heads 4 --seq-length 128 "
                             "--max-position-embeddings 128 --micro-batch-size 1\n";
  const AuditResult r = run(script, assumed);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "env.cuda_device_max_connections_tp_cp");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(found[0]->diagnostic.message.find("an assumed hopper GPU") != std::string::npos);
  // Named, it is the error.
  const AuditResult h100 = run(script);
  const auto named = with_rule(h100, "env.cuda_device_max_connections_tp_cp");
  REQUIRE(named.size() == 1);
  CHECK(named[0]->diagnostic.severity == lg::Severity::error);
}
