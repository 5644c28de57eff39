#include "rules_test_support.hpp"

using namespace lg;
using lg::testing::contains_text;
using lg::testing::expect_finding;
using lg::testing::fires;
using lg::testing::llama3_70b_sft;

TEST_SUITE_BEGIN("rules");

TEST_CASE("optimizer.precision_aware_needs_adam")
{
  auto spec = llama3_70b_sft();
  spec.training.optimizer.precision_aware = true;
  spec.training.optimizer.name = "sgd";
  const auto d = expect_finding(spec, "optimizer.precision_aware_needs_adam", Severity::error,
                                "training.optimizer");
  CHECK(contains_text(d.message, "upstream: --use-precision-aware-optimizer only supported with "
                                 "adam"));
}

TEST_CASE("optimizer.state_dtype_needs_precision_aware: bf16 states; bf16 grads alone are fine")
{
  auto spec = llama3_70b_sft();
  spec.training.optimizer.grad_dtype = "bf16";  // grad_reduce_in_fp32 = False: legal
  CHECK_FALSE(fires(spec, "optimizer.state_dtype_needs_precision_aware"));
  spec.training.optimizer.state_dtype = "bf16";
  const auto d = expect_finding(spec, "optimizer.state_dtype_needs_precision_aware",
                                Severity::error, "training.optimizer");
  CHECK(contains_text(d.message, "upstream: AssertionError: exp_avg_dtype can only be fp32 when "
                                 "not using precision-aware optimizer"));
  spec.training.optimizer.precision_aware = true;
  CHECK_FALSE(fires(spec, "optimizer.state_dtype_needs_precision_aware"));
}

TEST_CASE("optimizer.overlap_param_gather_*: Megatron-LM errors, Bridge warns")
{
  auto spec = llama3_70b_sft();
  spec.training.distributed_optimizer = false;
  spec.training.overlap_param_gather = true;
  spec.launch.framework = config::Framework::megatron_lm;
  auto d = expect_finding(spec, "optimizer.overlap_param_gather_needs_sharding", Severity::error,
                          "training.overlap_param_gather");
  CHECK(contains_text(d.message, "upstream: --overlap-param-gather only supported with "
                                 "distributed optimizer, megatron fsdp, or dist_muon"));
  d = expect_finding(spec, "optimizer.overlap_param_gather_needs_grad_reduce", Severity::error,
                     "training.overlap_grad_reduce");
  CHECK(contains_text(d.message, "upstream: Must use --overlap-param-gather with "
                                 "--overlap-grad-reduce"));
  CHECK_FALSE(fires(spec, "optimizer.overlap_param_gather_enables_distributed_optimizer"));
  spec.launch.framework = config::Framework::megatron_bridge;
  d = expect_finding(spec, "optimizer.overlap_param_gather_enables_distributed_optimizer",
                     Severity::warning, "training.distributed_optimizer");
  CHECK(contains_text(d.message, "Bridge silently turns use_distributed_optimizer on"));
  CHECK_FALSE(fires(spec, "optimizer.overlap_param_gather_needs_sharding"));
}

TEST_CASE("optimizer.megatron_fsdp_optimizer")
{
  auto spec = llama3_70b_sft();
  spec.training.fsdp = config::Fsdp::megatron;
  spec.training.optimizer.name = "muon";
  const auto d = expect_finding(spec, "optimizer.megatron_fsdp_optimizer", Severity::error,
                                "training.optimizer");
  CHECK(contains_text(d.message, "upstream: Megatron-FSDP does not support the muon optimizer "
                                 "yet."));
}

TEST_CASE("optimizer.torch_fsdp2_with_pp")
{
  auto spec = llama3_70b_sft();
  spec.training.fsdp = config::Fsdp::torch;
  const auto d = expect_finding(spec, "optimizer.torch_fsdp2_with_pp", Severity::error,
                                "training.fsdp");
  CHECK(contains_text(d.message, "upstream: --use-torch-fsdp2 is not supported with pipeline "
                                 "parallelism"));
}

TEST_CASE("optimizer.torch_fsdp2_limits: ep > 1")
{
  auto spec = lg::testing::moe_spec();
  spec.training.fsdp = config::Fsdp::torch;
  const auto d = expect_finding(spec, "optimizer.torch_fsdp2_limits", Severity::error,
                                "training.fsdp");
  CHECK(contains_text(d.message, "torch FSDP2 does not support ep = 8"));
}

TEST_CASE("optimizer.nccl_ub_needs_sharding")
{
  auto spec = llama3_70b_sft();
  spec.training.nccl_ub = true;
  CHECK_FALSE(fires(spec, "optimizer.nccl_ub_needs_sharding"));
  spec.training.distributed_optimizer = false;
  const auto d = expect_finding(spec, "optimizer.nccl_ub_needs_sharding", Severity::warning,
                                "training.nccl_ub");
  CHECK(contains_text(d.message, "nccl_ub registers NCCL user buffers"));
}

TEST_CASE("optimizer.distributed_optimizer_off")
{
  auto spec = llama3_70b_sft();
  spec.training.distributed_optimizer = false;
  const auto d = expect_finding(spec, "optimizer.distributed_optimizer_off", Severity::advice,
                                "training.distributed_optimizer");
  CHECK(contains_text(d.message, "~1-2% throughput"));
  CHECK(contains_text(d.fix, "use_distributed_optimizer = True"));
}

TEST_CASE("optimizer.fsdp_tp_on_hopper")
{
  auto spec = llama3_70b_sft();
  spec.training.fsdp = config::Fsdp::megatron;
  const auto d = expect_finding(spec, "optimizer.fsdp_tp_on_hopper", Severity::advice,
                                "parallelism.tp");
  CHECK(contains_text(d.message, "Prefer FSDP with TP=1 or TP=2 on H100"));
}

TEST_CASE("optimizer.moe_overlap_grad_reduce_hopper")
{
  auto spec = lg::testing::moe_spec();
  spec.training.overlap_grad_reduce = true;
  const auto d = expect_finding(spec, "optimizer.moe_overlap_grad_reduce_hopper", Severity::advice,
                                "training.overlap_grad_reduce");
  CHECK(contains_text(d.message, "May hurt throughput"));
}

TEST_SUITE_END();
