// Activation recompute rules (each cites its upstream source).
#include "rules/rule.hpp"

#include <fmt/core.h>

namespace lg::rules {

namespace {

// Allowed selective modules, in upstream's order.
const std::vector<std::string>& allowed_modules()
{
  static const std::vector<std::string> k_allowed = {
    "core_attn",   "moe_act",      "layernorm",   "mla_up_proj", "mlp", "moe",
    "shared_experts", "gdn_norm_out", "gdp_in_proj", "gdp_qkv",     "mhc"};
  return k_allowed;
}

bool is_full(const Context& ctx)
{
  return ctx.spec.training.recompute.granularity == config::RecomputeGranularity::full;
}

std::optional<Finding> full_num_layers(const Context& ctx)
{
  const int n = ctx.spec.training.recompute.num_layers;
  if (!is_full(ctx) || n >= 1) {
    return std::nullopt;
  }
  const int per_rank = layers_per_pp_rank(ctx);
  return Finding{
    with_upstream(fmt::format("full recompute with num_layers = {}", n),
                  fmt::format("When using recompute_granularity: full recompute_num_layers must "
                              "be between 1 and num_layers_per_pipeline_rank: {}",
                              per_rank)),
    fmt::format("set training.recompute num_layers between 1 and {}", per_rank),
    "training.recompute"};
}

std::optional<Finding> modules_allowed(const Context& ctx)
{
  std::vector<std::string> invalid;
  for (const auto& module : ctx.recompute_modules) {
    if (!contains(allowed_modules(), module)) {
      invalid.push_back(module);
    }
  }
  if (invalid.empty()) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("unknown selective recompute module(s) {}", python_set(invalid)),
                  fmt::format("Invalid choices for recompute_modules: {}. Allowed modules are: {}",
                              python_set(invalid), python_set(allowed_modules()))),
    "use modules from: core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts",
    "training.recompute"};
}

std::optional<Finding> moe_act_needs_experts(const Context& ctx)
{
  if (!contains(ctx.recompute_modules, "moe_act") || is_moe(ctx.spec.model)) {
    return std::nullopt;
  }
  return Finding{
    with_upstream("moe_act recompute on a model without experts (no grouped GEMM)",
                  "moe_act in recompute_modules is only supported with moe_grouped_gemm."),
    "remove moe_act from training.recompute modules (use mlp for dense models)",
    "training.recompute"};
}

std::optional<Finding> mla_up_proj_needs_mla(const Context& ctx)
{
  if (!contains(ctx.recompute_modules, "mla_up_proj") || ctx.spec.model.mla) {
    return std::nullopt;
  }
  return Finding{
    with_upstream("mla_up_proj recompute on a model without multi-latent attention",
                  "mla_up_proj in recompute_modules is only supported with "
                  "multi_latent_attention."),
    "remove mla_up_proj from training.recompute modules", "training.recompute"};
}

std::optional<Finding> core_attn_with_fused(const Context& ctx)
{
  const auto backend = ctx.spec.training.attention_backend;
  if (!contains(ctx.recompute_modules, "core_attn")
      || backend == config::AttentionBackend::unfused) {
    return std::nullopt;
  }
  return Finding{
    with_upstream("core_attn recompute with a fused/flash attention backend (measured on "
                  "Moonlight 16B: -0.01% memory for +3.85% step time)",
                  "For fused attention, you have no need to set 'core_attn' to recompute."),
    "drop core_attn from training.recompute modules unless attention_backend = \"unfused\"; "
    "recompute mlp or moe_act where memory is needed",
    "training.recompute"};
}

std::optional<Finding> fp8_delayed_moe_act_layernorm(const Context& ctx)
{
  if (ctx.spec.training.precision != config::Precision::fp8_delayed
      || (!contains(ctx.recompute_modules, "moe_act")
          && !contains(ctx.recompute_modules, "layernorm"))) {
    return std::nullopt;
  }
  return Finding{
    with_upstream("fp8-delayed with moe_act or layernorm recompute",
                  "Delayed scaling does not support moe_act and layernorm recompute for fp8."),
    "use training.precision = \"fp8-cs\" (current scaling), or drop moe_act/layernorm from the "
    "recompute modules",
    "training.precision"};
}

constexpr Rule k_rules[] = {
  {"recompute.full_num_layers", Severity::error,
   "full recompute needs num_layers between 1 and the layers per pipeline rank",
   "[ML] megatron/core/transformer/transformer_config.py:1919-1925", full_num_layers},
  {"recompute.modules_allowed", Severity::error,
   "selective recompute modules must be known to Megatron Core",
   "[ML] megatron/core/transformer/transformer_config.py:1940-1962", modules_allowed},
  {"recompute.moe_act_needs_grouped_gemm", Severity::error,
   "moe_act recompute needs MoE grouped GEMM (a model with experts)",
   "[ML] megatron/core/transformer/transformer_config.py:1964-1967", moe_act_needs_experts},
  {"recompute.mla_up_proj_needs_mla", Severity::error,
   "mla_up_proj recompute needs multi-latent attention",
   "[ML] megatron/core/transformer/transformer_config.py:1969-1973", mla_up_proj_needs_mla},
  {"recompute.core_attn_with_fused_attention", Severity::warning,
   "core_attn recompute buys nothing with fused/flash attention",
   "[ML] megatron/core/transformer/transformer_config.py:1983-1989; [SK] "
   "nemo-mbridge-perf-activation-recompute/SKILL.md:119-133",
   core_attn_with_fused},
  {"recompute.fp8_delayed_moe_act_layernorm", Severity::error,
   "fp8 delayed scaling does not support moe_act or layernorm recompute",
   "[ML] megatron/core/transformer/transformer_config.py:2000-2012",
   fp8_delayed_moe_act_layernorm},
};

} // namespace

std::span<const Rule> recompute_rules()
{
  return k_rules;
}

} // namespace lg::rules
