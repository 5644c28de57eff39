#include "rules_test_support.hpp"

using namespace lg;
using lg::testing::contains_text;
using lg::testing::expect_finding;
using lg::testing::fires;
using lg::testing::moe_spec;

TEST_SUITE_BEGIN("rules");

TEST_CASE("moe: the MoE baseline has no errors")
{
  const auto all = lg::testing::run_rules(moe_spec());
  CHECK_FALSE(has_errors(all));
}

TEST_CASE("moe.ep_requires_experts: ep 8 on a dense model")
{
  auto spec = lg::testing::llama3_70b_sft();
  spec.parallelism.ep = 2;
  auto d = expect_finding(spec, "moe.ep_requires_experts", Severity::error, "parallelism.ep");
  CHECK(contains_text(d.message, "upstream: num_moe_experts must be non None to use "
                                 "expert-parallel."));
  spec.launch.framework = config::Framework::megatron_lm;
  d = expect_finding(spec, "moe.ep_requires_experts", Severity::error, "parallelism.ep");
  CHECK(contains_text(d.message, "upstream: num_experts must be non None to use expert model "
                                 "parallelism"));
}

TEST_CASE("moe.num_experts_positive")
{
  auto spec = moe_spec();
  spec.model.moe->num_experts = -1;
  spec.parallelism.ep = 1;
  const auto d = expect_finding(spec, "moe.num_experts_positive", Severity::error,
                                "model.moe.num_experts");
  CHECK(contains_text(d.message, "upstream: num_moe_experts must be non-negative."));
}

TEST_CASE("moe.ffn_without_experts")
{
  auto spec = moe_spec();
  spec.model.moe->num_experts = 0;
  spec.parallelism.ep = 1;
  const auto d = expect_finding(spec, "moe.ffn_without_experts", Severity::error,
                                "model.moe.moe_ffn_hidden_size");
  CHECK(contains_text(d.message, "upstream: moe_ffn_hidden_size is set but num_moe_experts is "
                                 "None. Please set num_moe_experts or remove "
                                 "moe_ffn_hidden_size."));
}

TEST_CASE("moe.experts_divisible_by_ep: 60 experts on ep 8")
{
  auto spec = moe_spec();
  spec.model.moe->num_experts = 60;
  const auto d = expect_finding(spec, "moe.experts_divisible_by_ep", Severity::error,
                                "parallelism.ep");
  CHECK(contains_text(d.message, "upstream: Number of experts should be a multiple of expert "
                                 "model parallel_size."));
  CHECK(contains_text(d.message, "num_experts 60 is not a multiple of ep 8"));
}

TEST_CASE("moe.token_dispatcher_value")
{
  auto spec = moe_spec();
  spec.model.moe->token_dispatcher = "all2all";
  const auto d = expect_finding(spec, "moe.token_dispatcher_value", Severity::error,
                                "model.moe.token_dispatcher");
  CHECK(contains_text(d.message, "\"all2all\""));
}

TEST_CASE("moe.bias_requires_etp1: bias with etp defaulting to tp 2")
{
  auto spec = moe_spec();
  spec.model.add_bias_linear = true;
  const auto d = expect_finding(spec, "moe.bias_requires_etp1", Severity::error,
                                "parallelism.etp");
  CHECK(contains_text(d.message, "upstream: AssertionError: Bias in Moe is only supported when "
                                 "ETP==1"));
  spec.parallelism.etp = 1;
  CHECK_FALSE(fires(spec, "moe.bias_requires_etp1"));
}

TEST_CASE("moe.tp_needs_sp: ep and tp without SP")
{
  auto spec = moe_spec();
  spec.parallelism.sequence_parallel = false;
  const auto d = expect_finding(spec, "moe.tp_needs_sp", Severity::warning,
                                "parallelism.sequence_parallel");
  CHECK(contains_text(d.message, "upstream: When using expert parallelism and tensor parallelism "
                                 "for training, sequence parallelism must be used"));
}

TEST_CASE("moe.deepep_gpu: Megatron Bridge rejects DeepEP on GB200/GB300, not on B200 or Hopper")
{
  // Megatron Bridge src/megatron/bridge/training/flex_dispatcher_backend.py,
  // validate_flex_dispatcher_backend: compute capability 8.x/9.x or a device
  // name starting "NVIDIA B200"/"NVIDIA B300", else ValueError("DeepEP is
  // supported for Ampere, Hopper, and Blackwell (B200/B300) GPUs. ...").
  auto spec = moe_spec();
  spec.model.moe->token_dispatcher = "flex";
  spec.cluster.gpu_info.generation = config::GpuGeneration::blackwell;
  spec.cluster.gpu_info.display_name = "GB200 NVL72";
  const auto d = expect_finding(spec, "moe.deepep_gpu", Severity::error, "model.moe.token_dispatcher");
  CHECK(contains_text(d.message, "upstream: DeepEP is supported for Ampere, Hopper, and Blackwell (B200/B300) GPUs."));
  spec.model.moe->flex_backend = "hybridep";
  CHECK_FALSE(fires(spec, "moe.deepep_gpu"));
  spec.model.moe->flex_backend = "deepep";
  spec.cluster.gpu_info.display_name = "B200 180GB";
  CHECK_FALSE(fires(spec, "moe.deepep_gpu"));
  spec.cluster.gpu_info.display_name = "GB300 NVL72";
  spec.launch.framework = config::Framework::megatron_lm;  // no such check: not judged
  CHECK_FALSE(fires(spec, "moe.deepep_gpu"));
  spec.launch.framework = config::Framework::megatron_bridge;
  spec.cluster.gpu_info.generation = config::GpuGeneration::hopper;
  spec.cluster.gpu_info.display_name = "H100 80GB";
  CHECK_FALSE(fires(spec, "moe.deepep_gpu"));
}

TEST_CASE("moe.deepep_needs_flex, moe.deepep_one_backend, moe.ncclep_needs_flex: TransformerConfig's flex checks")
{
  // Megatron-LM megatron/core/transformer/transformer_config.py __post_init__:
  // moe_enable_deepep without the flex dispatcher, moe_enable_deepep with
  // HybridEP, and the NCCL EP backend without the flex dispatcher raise
  // ValueError with these messages.
  auto spec = moe_spec();
  spec.model.moe->enable_deepep = true;
  spec.model.moe->token_dispatcher = "alltoall";
  auto findings = lg::testing::run_rules(spec);
  CHECK(fires(spec, "moe.deepep_needs_flex"));
  bool message = false;
  for (const auto& d : findings) {
    message = message || contains_text(d.message, "upstream: DeepEP backend is only supported with flex token dispatcher.");
  }
  CHECK(message);
  spec.model.moe->token_dispatcher = "flex";
  CHECK_FALSE(fires(spec, "moe.deepep_needs_flex"));
  CHECK_FALSE(fires(spec, "moe.deepep_one_backend"));
  spec.model.moe->flex_backend = "hybridep";
  CHECK(fires(spec, "moe.deepep_one_backend"));
  spec.model.moe->enable_deepep = false;
  CHECK_FALSE(fires(spec, "moe.deepep_one_backend"));
  spec.model.moe->flex_backend = "ncclep";
  CHECK_FALSE(fires(spec, "moe.ncclep_needs_flex"));
  spec.model.moe->token_dispatcher = "alltoall";
  CHECK(fires(spec, "moe.ncclep_needs_flex"));
}

TEST_SUITE_END();
