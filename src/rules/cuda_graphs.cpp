// CUDA graph rules (each cites its upstream source). The NCCL_GRAPH_REGISTER /
// expandable_segments rule is an environment rule and lives in src/env.
#include "rules/rule.hpp"

#include <fmt/core.h>

namespace lg::rules {

namespace {

using config::CudaGraphs;

CudaGraphs impl(const Context& ctx)
{
  return ctx.spec.training.cuda_graphs;
}

bool captures(const Context& ctx, std::string_view module)
{
  return contains(ctx.spec.training.cuda_graph_modules, module);
}

std::optional<Finding> full_iteration_no_modules(const Context& ctx)
{
  if (impl(ctx) != CudaGraphs::full_iteration || ctx.spec.training.cuda_graph_modules.empty()) {
    return std::nullopt;
  }
  return Finding{
    with_upstream("cuda_graphs = full_iteration with cuda_graph_modules set",
                  is_bridge(ctx.spec)
                    ? "cuda_graph_modules must be empty when cuda_graph_impl=\"full_iteration\"."
                    : "--cuda-graph-modules must be empty when --cuda-graph-impl=full_iteration."),
    "remove training.cuda_graph_modules (a full-iteration graph captures everything)",
    "training.cuda_graph_modules"};
}

std::optional<Finding> bridge_local_only_full_iteration(const Context& ctx)
{
  if (impl(ctx) != CudaGraphs::local || !is_bridge(ctx.spec)) {
    return std::nullopt;
  }
  return Finding{
    with_upstream("Megatron Bridge with cuda_graphs = local",
                  "Megatron Bridge supports model.cuda_graph_impl=\"local\" only for "
                  "full-iteration CUDA graphs... Use model.cuda_graph_impl=\"transformer_engine\" "
                  "for scoped CUDA graph capture such as \"attn\" or \"mlp\"."),
    "set training.cuda_graphs = \"transformer_engine\" (scoped) or \"full_iteration\"",
    "training.cuda_graphs"};
}

std::optional<Finding> moe_and_moe_router(const Context& ctx)
{
  if (impl(ctx) == CudaGraphs::none || !captures(ctx, "moe") || !captures(ctx, "moe_router")) {
    return std::nullopt;
  }
  return Finding{with_upstream("cuda_graph_modules has both moe and moe_router",
                               "cuda_graph_modules must not contain both moe and moe_router."),
                 "keep moe_router (and moe_preprocess) or moe, not both",
                 "training.cuda_graph_modules"};
}

std::optional<Finding> moe_preprocess_needs_router(const Context& ctx)
{
  if (impl(ctx) != CudaGraphs::transformer_engine || !captures(ctx, "moe_preprocess")
      || captures(ctx, "moe_router")) {
    return std::nullopt;
  }
  return Finding{with_upstream("moe_preprocess captured without moe_router",
                               "moe_preprocess cuda graph is only supported with moe_router cuda "
                               "graph."),
                 "add moe_router to training.cuda_graph_modules", "training.cuda_graph_modules"};
}

std::optional<Finding> moe_modules_need_moe(const Context& ctx)
{
  const auto& moe = ctx.spec.model.moe;
  if (impl(ctx) == CudaGraphs::none || (moe && moe->num_experts > 1)
      || (!captures(ctx, "moe") && !captures(ctx, "moe_router"))) {
    return std::nullopt;
  }
  return Finding{with_upstream("moe / moe_router CUDA graph on a model without experts",
                               "moe cuda graph is only supported for MoE."),
                 "capture attn and mlp on dense models", "training.cuda_graph_modules"};
}

std::optional<Finding> mlp_needs_dense(const Context& ctx)
{
  if (impl(ctx) == CudaGraphs::none || !captures(ctx, "mlp") || !all_layers_moe(ctx.spec.model)) {
    return std::nullopt;
  }
  return Finding{with_upstream("mlp CUDA graph on a model whose every layer is MoE",
                               "mlp cuda graph is only supported for dense layers, but not found "
                               "in the model."),
                 "capture moe_router (and moe_preprocess) instead of mlp",
                 "training.cuda_graph_modules"};
}

std::optional<Finding> moe_needs_drop_pad(const Context& ctx)
{
  if (impl(ctx) == CudaGraphs::none || !captures(ctx, "moe")) {
    return std::nullopt;
  }
  return Finding{
    with_upstream("moe CUDA graph: only drop-and-pad MoE (moe_expert_capacity_factor plus "
                  "moe_pad_expert_input_to_capacity) has static shapes; the job file cannot say "
                  "whether the recipe sets them",
                  "moe cuda graph is only supported with drop-padding MoE."),
    "capture moe_router and moe_preprocess instead, or make sure the recipe sets a capacity "
    "factor with padding",
    "training.cuda_graph_modules"};
}

std::optional<Finding> full_recompute(const Context& ctx)
{
  if (ctx.spec.training.recompute.granularity != config::RecomputeGranularity::full
      || impl(ctx) == CudaGraphs::none || impl(ctx) == CudaGraphs::full_iteration) {
    return std::nullopt;
  }
  return Finding{with_upstream(fmt::format("full recompute with cuda_graphs = {}",
                                           config::to_string(impl(ctx))),
                               "full recompute is only supported with full iteration CUDA graph."),
                 "use selective recompute, or cuda_graphs = \"full_iteration\"",
                 "training.recompute"};
}

std::optional<Finding> moe_recompute_with_router(const Context& ctx)
{
  if (impl(ctx) != CudaGraphs::transformer_engine || !captures(ctx, "moe_router")
      || !contains(ctx.recompute_modules, "moe")) {
    return std::nullopt;
  }
  return Finding{with_upstream("moe recompute with a TE moe_router CUDA graph",
                               "moe recompute is not supported with moe_router CUDA graph with: "),
                 "recompute moe_act instead of moe, or stop capturing moe_router",
                 "training.recompute"};
}

std::optional<Finding> attention_dropout_recompute(const Context& ctx)
{
  if (impl(ctx) == CudaGraphs::none || ctx.spec.model.attention_dropout <= 0.0
      || !captures(ctx, "attn") || !contains(ctx.recompute_modules, "core_attn")) {
    return std::nullopt;
  }
  return Finding{with_upstream(fmt::format("attention_dropout {} with graphed core_attn recompute",
                                           ctx.spec.model.attention_dropout),
                               "attention dropout is not supported with graphed attention "
                               "recomputation."),
                 "set model.attention_dropout = 0, or drop core_attn from the recompute modules",
                 "model.attention_dropout"};
}

std::optional<Finding> full_iteration_nan_check(const Context& ctx)
{
  if (impl(ctx) != CudaGraphs::full_iteration) {
    return std::nullopt;
  }
  return Finding{
    with_upstream("full-iteration CUDA graph: NaN checking is on by default and must be off",
                  is_bridge(ctx.spec)
                    ? "check_for_nan_in_loss must be disabled when using full_iteration CUDA "
                      "graph. Set rerun_state_machine.check_for_nan_in_loss=False."
                    : "--no-check-for-nan-in-loss-and-grad should be set with "
                      "--cuda-graph-impl=full_iteration for training."),
    is_bridge(ctx.spec) ? "pass rerun_state_machine.check_for_nan_in_loss=False in the command"
                        : "add --no-check-for-nan-in-loss-and-grad to the command",
    "training.cuda_graphs"};
}

std::optional<Finding> memory_overhead(const Context& ctx)
{
  if (impl(ctx) == CudaGraphs::none) {
    return std::nullopt;
  }
  const bool full = impl(ctx) == CudaGraphs::full_iteration;
  return Finding{fmt::format("cuda_graphs = {}: {}{}", config::to_string(impl(ctx)),
                             full ? "full-iteration graphs \"can increase peak memory by 1.5-2x\""
                                  : "scoped graphs add \"a few GB\" of graph buffers",
                             ctx.spec.parallelism.pp > 1
                               ? "; with pp > 1 every stage holds its own graphs"
                               : ""),
                 "keep headroom (see the estimate), and disable graphs first if the job OOMs",
                 "training.cuda_graphs"};
}

constexpr Rule k_rules[] = {
  {"cuda_graphs.full_iteration_no_modules", Severity::error,
   "full_iteration graphs take no cuda_graph_modules",
   "[ML] megatron/core/transformer/transformer_config.py:2794-2796; [ML] "
   "megatron/training/arguments.py:1969-1971",
   full_iteration_no_modules},
  {"cuda_graphs.bridge_local_only_full_iteration", Severity::error,
   "Bridge supports the local impl only as full-iteration graphs",
   "[MB] src/megatron/bridge/utils/cuda_graph.py:134-153", bridge_local_only_full_iteration},
  {"cuda_graphs.moe_and_moe_router", Severity::error,
   "cuda_graph_modules must not contain both moe and moe_router",
   "[ML] megatron/core/transformer/transformer_config.py:2817-2820", moe_and_moe_router},
  {"cuda_graphs.moe_preprocess_needs_router", Severity::error,
   "moe_preprocess capture needs moe_router capture",
   "[ML] megatron/core/transformer/transformer_config.py:2804-2824", moe_preprocess_needs_router},
  {"cuda_graphs.moe_modules_need_moe", Severity::error,
   "moe / moe_router capture needs an MoE model",
   "[ML] megatron/core/transformer/transformer_config.py:2825-2829", moe_modules_need_moe},
  {"cuda_graphs.mlp_needs_dense", Severity::error, "mlp capture needs dense layers",
   "[ML] megatron/core/transformer/transformer_config.py:2830-2837", mlp_needs_dense},
  {"cuda_graphs.moe_needs_drop_pad", Severity::warning,
   "moe capture needs drop-and-pad MoE (capacity factor + padding, not in the job file)",
   "[ML] megatron/core/transformer/transformer_config.py:2838-2844", moe_needs_drop_pad},
  {"cuda_graphs.full_recompute", Severity::error,
   "full recompute works only with full-iteration graphs",
   "[ML] megatron/core/transformer/transformer_config.py:2854-2858", full_recompute},
  {"cuda_graphs.moe_recompute_with_router", Severity::error,
   "moe recompute does not work with a TE moe_router graph",
   "[ML] megatron/core/transformer/transformer_config.py:2862-2869", moe_recompute_with_router},
  {"cuda_graphs.attention_dropout_recompute", Severity::error,
   "attention dropout does not work with graphed core_attn recompute",
   "[ML] megatron/core/transformer/transformer_config.py:2871-2906",
   attention_dropout_recompute},
  {"cuda_graphs.full_iteration_nan_check", Severity::warning,
   "full-iteration graphs need NaN checking off (on by default; not in the job file)",
   "[ML] megatron/training/arguments.py:1235-1237; [MB] src/megatron/bridge/training/"
   "config.py:1508-1513",
   full_iteration_nan_check},
  {"cuda_graphs.memory_overhead", Severity::advice,
   "CUDA graphs cost memory: a few GB scoped, 1.5-2x peak full-iteration",
   "[SK] nemo-mbridge-perf-cuda-graphs/SKILL.md:264-267", memory_overhead},
};

} // namespace

std::span<const Rule> cuda_graphs_rules()
{
  return k_rules;
}

} // namespace lg::rules
