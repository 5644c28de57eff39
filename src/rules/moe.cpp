// Expert parallelism / MoE rules (each cites its upstream source).
#include "rules/rule.hpp"

#include <fmt/core.h>

namespace lg::rules {

namespace {

std::optional<Finding> ep_requires_experts(const Context& ctx)
{
  const int ep = ctx.spec.parallelism.ep;
  if (ep <= 1 || is_moe(ctx.spec.model)) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("ep = {} on a model without experts", ep),
                  is_bridge(ctx.spec) ? "num_moe_experts must be non None to use expert-parallel."
                                      : "num_experts must be non None to use expert model "
                                        "parallelism"),
    "set parallelism.ep = 1, or describe the experts in [model.moe]", "parallelism.ep"};
}

std::optional<Finding> num_experts_positive(const Context& ctx)
{
  const auto& moe = ctx.spec.model.moe;
  if (!moe || moe->num_experts >= 0) {
    return std::nullopt;
  }
  return Finding{with_upstream(fmt::format("model.moe.num_experts = {}", moe->num_experts),
                               "num_moe_experts must be non-negative."),
                 "set model.moe.num_experts to the expert count, or remove [model.moe]",
                 "model.moe.num_experts"};
}

std::optional<Finding> ffn_without_experts(const Context& ctx)
{
  const auto& moe = ctx.spec.model.moe;
  if (!moe || moe->num_experts != 0 || moe->moe_ffn_hidden_size <= 0) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("moe_ffn_hidden_size = {} with num_experts = 0",
                              moe->moe_ffn_hidden_size),
                  "moe_ffn_hidden_size is set but num_moe_experts is None. Please set "
                  "num_moe_experts or remove moe_ffn_hidden_size."),
    "set model.moe.num_experts, or remove [model.moe]", "model.moe.moe_ffn_hidden_size"};
}

std::optional<Finding> experts_divisible_by_ep(const Context& ctx)
{
  const int ep = ctx.spec.parallelism.ep;
  if (ep <= 1 || !is_moe(ctx.spec.model) || ctx.spec.model.moe->num_experts % ep == 0) {
    return std::nullopt;
  }
  const int experts = ctx.spec.model.moe->num_experts;
  return Finding{
    with_upstream(fmt::format("num_experts {} is not a multiple of ep {}", experts, ep),
                  "Number of experts should be a multiple of expert model parallel_size."),
    fmt::format("pick an ep that divides {}", experts), "parallelism.ep"};
}

std::optional<Finding> token_dispatcher_value(const Context& ctx)
{
  const auto& moe = ctx.spec.model.moe;
  if (!is_moe(ctx.spec.model)) {
    return std::nullopt;
  }
  const auto& d = moe->token_dispatcher;
  if (d == "alltoall" || d == "allgather" || d == "flex") {
    return std::nullopt;
  }
  return Finding{fmt::format("unknown token_dispatcher \"{}\" (Megatron accepts allgather, "
                             "alltoall, flex)",
                             d),
                 "set model.moe.token_dispatcher = \"alltoall\" (or \"allgather\" / \"flex\")",
                 "model.moe.token_dispatcher"};
}

std::optional<Finding> bias_requires_etp1(const Context& ctx)
{
  if (!is_moe(ctx.spec.model) || !ctx.spec.model.add_bias_linear || ctx.etp == 1) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("MoE with add_bias_linear and etp = {} (etp defaults to tp)",
                              ctx.etp),
                  "AssertionError: Bias in Moe is only supported when ETP==1"),
    "set parallelism.etp = 1, or model.add_bias_linear = false", "parallelism.etp"};
}

std::optional<Finding> tp_needs_sp(const Context& ctx)
{
  const auto& p = ctx.spec.parallelism;
  if (p.ep <= 1 || p.tp <= 1 || p.sequence_parallel) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("ep = {} and tp = {} without sequence parallelism", p.ep, p.tp),
                  "When using expert parallelism and tensor parallelism for training, sequence "
                  "parallelism must be used"),
    "set parallelism.sequence_parallel = true", "parallelism.sequence_parallel"};
}

// Megatron Bridge validates the flex backend against the GPU before training
// (training/config.py -> flex_dispatcher_backend.py validate_flex_dispatcher_backend,
// a ValueError); Megatron-LM has no such check, so other jobs are not judged.
std::optional<Finding> deepep_gpu(const Context& ctx)
{
  const auto& moe = ctx.spec.model.moe;
  if (!is_moe(ctx.spec.model) || !config::runs_deepep(*moe) || !is_bridge(ctx.spec) || config::deepep_supported(ctx.spec.cluster.gpu_info)) {
    return std::nullopt;
  }
  return Finding{with_upstream(fmt::format("the DeepEP flex backend on {}", ctx.spec.cluster.gpu_info.display_name),
                               fmt::format("DeepEP is supported for Ampere, Hopper, and Blackwell (B200/B300) GPUs. "
                                           "Current GPU: {}",
                                           ctx.spec.cluster.gpu_info.display_name)),
                 "set model.moe.flex_backend = \"hybridep\" (GB200/GB300 NVL72), or token_dispatcher = \"alltoall\"",
                 "model.moe.token_dispatcher"};
}

// moe_enable_deepep (deprecated) and the flex backends, as
// TransformerConfig.__post_init__ checks them.
std::optional<Finding> deepep_needs_flex(const Context& ctx)
{
  const auto& moe = ctx.spec.model.moe;
  if (!is_moe(ctx.spec.model) || !moe->enable_deepep || moe->token_dispatcher == "flex") {
    return std::nullopt;
  }
  return Finding{with_upstream(fmt::format("enable_deepep with the {} token dispatcher", moe->token_dispatcher),
                               "DeepEP backend is only supported with flex token dispatcher."),
                 "set model.moe.token_dispatcher = \"flex\" (or drop enable_deepep)", "model.moe.enable_deepep"};
}

std::optional<Finding> deepep_one_backend(const Context& ctx)
{
  const auto& moe = ctx.spec.model.moe;
  if (!is_moe(ctx.spec.model) || !moe->enable_deepep || moe->flex_backend != "hybridep") {
    return std::nullopt;
  }
  return Finding{with_upstream("enable_deepep with flex_backend = \"hybridep\"",
                               "Only one backend is supported for flex token dispatcher."),
                 "drop enable_deepep (deprecated) and keep flex_backend, or set flex_backend = \"deepep\"",
                 "model.moe.enable_deepep"};
}

std::optional<Finding> ncclep_needs_flex(const Context& ctx)
{
  const auto& moe = ctx.spec.model.moe;
  if (!is_moe(ctx.spec.model) || moe->flex_backend != "ncclep" || moe->token_dispatcher == "flex") {
    return std::nullopt;
  }
  return Finding{with_upstream("flex_backend = \"ncclep\" without the flex token dispatcher",
                               "moe_flex_dispatcher_backend='ncclep' requires moe_token_dispatcher_type='flex'."),
                 "set model.moe.token_dispatcher = \"flex\"", "model.moe.flex_backend"};
}

constexpr Rule k_moe_rules[] = {
  {"moe.ep_requires_experts", Severity::error, "ep > 1 needs a model with experts",
   "[ML] megatron/core/transformer/transformer_config.py:1595-1596; [ML] "
   "megatron/training/arguments.py:1656",
   ep_requires_experts},
  {"moe.num_experts_positive", Severity::error, "num_experts must not be negative",
   "[ML] megatron/core/transformer/transformer_config.py:1682-1683", num_experts_positive},
  {"moe.ffn_without_experts", Severity::error, "moe_ffn_hidden_size needs num_experts",
   "[ML] megatron/core/transformer/transformer_config.py:1689-1705", ffn_without_experts},
  {"moe.experts_divisible_by_ep", Severity::error, "num_experts must be a multiple of ep",
   "[ML] megatron/training/arguments.py:1654-1658; [ML] "
   "megatron/core/transformer/moe/moe_layer.py:186",
   experts_divisible_by_ep},
  {"moe.token_dispatcher_value", Severity::error,
   "token_dispatcher must be alltoall, allgather or flex",
   "[ML] megatron/training/arguments.py (--moe-token-dispatcher-type choices)",
   token_dispatcher_value},
  {"moe.bias_requires_etp1", Severity::error, "MoE with linear bias needs etp = 1",
   "[ML] megatron/core/transformer/transformer_config.py:2612-2615", bias_requires_etp1},
  {"moe.tp_needs_sp", Severity::warning,
   "ep > 1 with tp > 1 needs sequence parallelism",
   "[ML] megatron/core/model_parallel_config.py:560-565", tp_needs_sp},
  {"moe.deepep_gpu", Severity::error, "DeepEP needs an Ampere, Hopper, B200 or B300 GPU",
   "[MB] src/megatron/bridge/training/flex_dispatcher_backend.py:88-103 (validate_flex_dispatcher_backend)",
   deepep_gpu},
  {"moe.deepep_needs_flex", Severity::error, "enable_deepep needs the flex token dispatcher",
   "[ML] megatron/core/transformer/transformer_config.py:1743-1745", deepep_needs_flex},
  {"moe.deepep_one_backend", Severity::error, "enable_deepep excludes the HybridEP backend",
   "[ML] megatron/core/transformer/transformer_config.py:1746-1747", deepep_one_backend},
  {"moe.ncclep_needs_flex", Severity::error, "the NCCL EP backend needs the flex token dispatcher",
   "[ML] megatron/core/transformer/transformer_config.py:1763-1768", ncclep_needs_flex},
};

} // namespace

std::span<const Rule> moe_rules()
{
  return k_moe_rules;
}

} // namespace lg::rules
