// Megatron-LM defines its flags with '-' (megatron/training/arguments.py,
// `--tensor-model-parallel-size`, `--use-distributed-optimizer`), and
// argparse matches option strings as written: a program that takes them as
// `--tensor_model_parallel_size` is a wrapper with its own parser and its own
// defaults. Held-out round 28: ms-swift's swift/cli/_megatron/sft.py, whose
// MegatronArguments default use_distributed_optimizer to true, got Megatron-LM's
// "the distributed optimizer is off" advice.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("snake_case Megatron flags under a megatron path: a wrapper, not judged by Megatron-LM's defaults")
{
  const std::string head = "#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=1\n#SBATCH --gres=gpu:8\n";
  const AuditResult r =
    run(head + "srun python /opt/ms-swift/swift/cli/_megatron/sft.py --tensor_model_parallel_size 2 "
               "--pipeline_model_parallel_size 1 --micro_batch_size 4 --global_batch_size 512 --num_layers 32 "
               "--hidden_size 4096 --num_attention_heads 32\n");
  CAPTURE(describe(r));
  for (const auto& f : r.findings) {
    CHECK_FALSE(f.diagnostic.rule.starts_with("optimizer."));
  }
  // The same flags with dashes on a Megatron-LM entry point are Megatron-LM's.
  const AuditResult lm =
    run(head + "srun python pretrain_gpt.py --tensor-model-parallel-size 2 --pipeline-model-parallel-size 1 "
               "--micro-batch-size 4 --global-batch-size 512 --num-layers 32 --hidden-size 4096 "
               "--num-attention-heads 32\n");
  CAPTURE(describe(lm));
  CHECK_FALSE(with_rule(lm, "optimizer.distributed_optimizer_off").empty());
}
