#include "rules_test_support.hpp"

using namespace lg;
using lg::testing::contains_text;
using lg::testing::expect_finding;
using lg::testing::llama3_70b_sft;

TEST_SUITE_BEGIN("rules");

namespace {

config::JobSpec selective(std::vector<std::string> modules)
{
  auto spec = llama3_70b_sft();
  spec.training.recompute.granularity = config::RecomputeGranularity::selective;
  spec.training.recompute.modules = std::move(modules);
  return spec;
}

} // namespace

TEST_CASE("recompute.full_num_layers: full with num_layers 0")
{
  auto spec = llama3_70b_sft();
  spec.training.recompute.granularity = config::RecomputeGranularity::full;
  spec.training.recompute.num_layers = 0;
  const auto d = expect_finding(spec, "recompute.full_num_layers", Severity::error,
                                "training.recompute");
  CHECK(contains_text(d.message, "upstream: When using recompute_granularity: full "
                                 "recompute_num_layers must be between 1 and "
                                 "num_layers_per_pipeline_rank: 20"));
}

TEST_CASE("recompute.modules_allowed: a typo")
{
  const auto d = expect_finding(selective({"mlp", "atten"}), "recompute.modules_allowed",
                                Severity::error, "training.recompute");
  CHECK(contains_text(d.message, "upstream: Invalid choices for recompute_modules: {'atten'}. "
                                 "Allowed modules are: {'core_attn', 'moe_act', 'layernorm', "));
}

TEST_CASE("recompute.moe_act_needs_grouped_gemm: dense model")
{
  const auto d = expect_finding(selective({"moe_act"}), "recompute.moe_act_needs_grouped_gemm",
                                Severity::error, "training.recompute");
  CHECK(contains_text(d.message, "upstream: moe_act in recompute_modules is only supported with "
                                 "moe_grouped_gemm."));
}

TEST_CASE("recompute.mla_up_proj_needs_mla")
{
  const auto d = expect_finding(selective({"mla_up_proj"}), "recompute.mla_up_proj_needs_mla",
                                Severity::error, "training.recompute");
  CHECK(contains_text(d.message, "upstream: mla_up_proj in recompute_modules is only supported "
                                 "with multi_latent_attention."));
  auto spec = selective({"mla_up_proj"});
  spec.model.mla = config::MlaSpec{};
  CHECK_FALSE(lg::testing::fires(spec, "recompute.mla_up_proj_needs_mla"));
}

TEST_CASE("recompute.core_attn_with_fused_attention: default selective modules")
{
  const auto d = expect_finding(selective({}), "recompute.core_attn_with_fused_attention",
                                Severity::warning, "training.recompute");
  CHECK(contains_text(d.message, "For fused attention, you have no need to set 'core_attn' to "
                                 "recompute."));
  auto spec = selective({"core_attn"});
  spec.training.attention_backend = config::AttentionBackend::unfused;
  CHECK_FALSE(lg::testing::fires(spec, "recompute.core_attn_with_fused_attention"));
}

TEST_CASE("recompute.fp8_delayed_moe_act_layernorm")
{
  auto spec = selective({"layernorm"});
  spec.training.precision = config::Precision::fp8_delayed;
  const auto d = expect_finding(spec, "recompute.fp8_delayed_moe_act_layernorm", Severity::error,
                                "training.precision");
  CHECK(contains_text(d.message, "upstream: Delayed scaling does not support moe_act and "
                                 "layernorm recompute for fp8."));
}

TEST_SUITE_END();
