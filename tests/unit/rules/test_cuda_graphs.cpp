#include "rules_test_support.hpp"

using namespace lg;
using lg::testing::contains_text;
using lg::testing::expect_finding;
using lg::testing::fires;

TEST_SUITE_BEGIN("rules");

namespace {

config::JobSpec graphed(config::JobSpec spec, config::CudaGraphs impl,
                        std::vector<std::string> modules)
{
  spec.training.cuda_graphs = impl;
  spec.training.cuda_graph_modules = std::move(modules);
  return spec;
}

config::JobSpec dense_te(std::vector<std::string> modules)
{
  return graphed(lg::testing::llama3_70b_sft(), config::CudaGraphs::transformer_engine,
                 std::move(modules));
}

config::JobSpec moe_te(std::vector<std::string> modules)
{
  return graphed(lg::testing::moe_spec(), config::CudaGraphs::transformer_engine,
                 std::move(modules));
}

} // namespace

TEST_CASE("cuda_graphs.full_iteration_no_modules")
{
  auto spec = graphed(lg::testing::llama3_70b_sft(), config::CudaGraphs::full_iteration, {"attn"});
  const auto d = expect_finding(spec, "cuda_graphs.full_iteration_no_modules", Severity::error,
                                "training.cuda_graph_modules");
  CHECK(contains_text(d.message, "upstream: cuda_graph_modules must be empty when "
                                 "cuda_graph_impl=\"full_iteration\"."));
}

TEST_CASE("cuda_graphs.bridge_local_only_full_iteration")
{
  auto spec = graphed(lg::testing::llama3_70b_sft(), config::CudaGraphs::local, {"attn"});
  const auto d = expect_finding(spec, "cuda_graphs.bridge_local_only_full_iteration",
                                Severity::error, "training.cuda_graphs");
  CHECK(contains_text(d.message, "Megatron Bridge supports model.cuda_graph_impl=\"local\" only "
                                 "for full-iteration CUDA graphs"));
  spec.launch.framework = config::Framework::megatron_lm;
  CHECK_FALSE(fires(spec, "cuda_graphs.bridge_local_only_full_iteration"));
}

TEST_CASE("cuda_graphs.moe_and_moe_router")
{
  const auto d = expect_finding(moe_te({"moe", "moe_router"}), "cuda_graphs.moe_and_moe_router",
                                Severity::error, "training.cuda_graph_modules");
  CHECK(contains_text(d.message, "upstream: cuda_graph_modules must not contain both moe and "
                                 "moe_router."));
}

TEST_CASE("cuda_graphs.moe_preprocess_needs_router")
{
  const auto d = expect_finding(moe_te({"attn", "moe_preprocess"}),
                                "cuda_graphs.moe_preprocess_needs_router", Severity::error,
                                "training.cuda_graph_modules");
  CHECK(contains_text(d.message, "upstream: moe_preprocess cuda graph is only supported with "
                                 "moe_router cuda graph."));
  CHECK_FALSE(fires(moe_te({"attn", "moe_router", "moe_preprocess"}),
                    "cuda_graphs.moe_preprocess_needs_router"));
}

TEST_CASE("cuda_graphs.moe_modules_need_moe: moe_router on a dense model")
{
  const auto d = expect_finding(dense_te({"attn", "moe_router"}),
                                "cuda_graphs.moe_modules_need_moe", Severity::error,
                                "training.cuda_graph_modules");
  CHECK(contains_text(d.message, "upstream: moe cuda graph is only supported for MoE."));
}

TEST_CASE("cuda_graphs.mlp_needs_dense: every layer is MoE")
{
  const auto d = expect_finding(moe_te({"attn", "mlp"}), "cuda_graphs.mlp_needs_dense",
                                Severity::error, "training.cuda_graph_modules");
  CHECK(contains_text(d.message, "upstream: mlp cuda graph is only supported for dense layers, "
                                 "but not found in the model."));
  auto mixed = moe_te({"attn", "mlp"});
  mixed.model.moe->layer_pattern.assign(48, 1);
  mixed.model.moe->layer_pattern[0] = 0;
  CHECK_FALSE(fires(mixed, "cuda_graphs.mlp_needs_dense"));
}

TEST_CASE("cuda_graphs.moe_needs_drop_pad")
{
  const auto d = expect_finding(moe_te({"attn", "moe"}), "cuda_graphs.moe_needs_drop_pad",
                                Severity::warning, "training.cuda_graph_modules");
  CHECK(contains_text(d.message, "upstream: moe cuda graph is only supported with drop-padding "
                                 "MoE."));
}

TEST_CASE("cuda_graphs.full_recompute")
{
  auto spec = dense_te({"attn"});
  spec.training.recompute.granularity = config::RecomputeGranularity::full;
  const auto d = expect_finding(spec, "cuda_graphs.full_recompute", Severity::error,
                                "training.recompute");
  CHECK(contains_text(d.message, "upstream: full recompute is only supported with full "
                                 "iteration CUDA graph."));
}

TEST_CASE("cuda_graphs.moe_recompute_with_router")
{
  auto spec = moe_te({"moe_router"});
  spec.training.recompute.granularity = config::RecomputeGranularity::selective;
  spec.training.recompute.modules = {"moe"};
  const auto d = expect_finding(spec, "cuda_graphs.moe_recompute_with_router", Severity::error,
                                "training.recompute");
  CHECK(contains_text(d.message, "upstream: moe recompute is not supported with moe_router CUDA "
                                 "graph with: "));
}

TEST_CASE("cuda_graphs.attention_dropout_recompute")
{
  auto spec = dense_te({"attn"});
  spec.model.attention_dropout = 0.1;
  spec.training.recompute.granularity = config::RecomputeGranularity::selective;
  const auto d = expect_finding(spec, "cuda_graphs.attention_dropout_recompute", Severity::error,
                                "model.attention_dropout");
  CHECK(contains_text(d.message, "upstream: attention dropout is not supported with graphed "
                                 "attention recomputation."));
}

TEST_CASE("cuda_graphs.full_iteration_nan_check: Bridge and Megatron-LM")
{
  auto spec = graphed(lg::testing::llama3_70b_sft(), config::CudaGraphs::full_iteration, {});
  auto d = expect_finding(spec, "cuda_graphs.full_iteration_nan_check", Severity::warning,
                          "training.cuda_graphs");
  CHECK(contains_text(d.message, "upstream: check_for_nan_in_loss must be disabled when using "
                                 "full_iteration CUDA graph. Set "
                                 "rerun_state_machine.check_for_nan_in_loss=False."));
  spec.launch.framework = config::Framework::megatron_lm;
  d = expect_finding(spec, "cuda_graphs.full_iteration_nan_check", Severity::warning,
                     "training.cuda_graphs");
  CHECK(contains_text(d.message, "upstream: --no-check-for-nan-in-loss-and-grad should be set "
                                 "with --cuda-graph-impl=full_iteration for training."));
}

TEST_CASE("cuda_graphs.memory_overhead")
{
  const auto d = expect_finding(dense_te({"attn"}), "cuda_graphs.memory_overhead",
                                Severity::advice, "training.cuda_graphs");
  CHECK(contains_text(d.message, "a few GB"));
  CHECK(contains_text(d.message, "with pp > 1 every stage holds its own graphs"));
}

TEST_SUITE_END();
