// Model shape rules: required sizes, head dimension, position embeddings.
#include "rules/rule.hpp"

#include <fmt/core.h>

namespace lg::rules {

namespace {

std::optional<Finding> required_args(const Context& ctx)
{
  const auto& m = ctx.spec.model;
  const std::pair<const char*, long long> sizes[] = {
    {"num_layers", m.num_layers},
    {"hidden_size", m.hidden_size},
    {"num_attention_heads", m.num_attention_heads},
    {"seq_length", m.seq_length},
  };
  for (const auto& [name, value] : sizes) {
    if (value <= 0) {
      return Finding{fmt::format("model.{} must be a positive integer, got {} (Megatron's "
                                 "_check_arg_is_not_none refuses to start)",
                                 name, value),
                     fmt::format("set model.{} (or pick a model preset)", name),
                     fmt::format("model.{}", name)};
    }
  }
  return std::nullopt;
}

std::optional<Finding> hidden_divisible_by_heads(const Context& ctx)
{
  const auto& m = ctx.spec.model;
  if (m.kv_channels > 0 || m.num_attention_heads <= 0 || m.hidden_size <= 0
      || m.hidden_size % m.num_attention_heads == 0) {
    return std::nullopt;
  }
  return Finding{
    fmt::format("hidden_size {} is not divisible by num_attention_heads {} and kv_channels is "
                "not set; upstream: AssertionError (bare assert in validate_args)",
                m.hidden_size, m.num_attention_heads),
    fmt::format("set model.kv_channels explicitly (e.g. {}) or pick a head count that divides {}",
                m.hidden_size / m.num_attention_heads, m.hidden_size),
    "model.kv_channels"};
}

std::optional<Finding> max_position_embeddings(const Context& ctx)
{
  const auto& m = ctx.spec.model;
  if (m.max_position_embeddings <= 0 || m.max_position_embeddings >= m.seq_length) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("max_position_embeddings {} < seq_length {}",
                              m.max_position_embeddings, m.seq_length),
                  fmt::format("max_position_embeddings ({}) must be greater than or equal to "
                              "seq_length ({}).",
                              m.max_position_embeddings, m.seq_length)),
    fmt::format("set model.max_position_embeddings >= {} or lower model.seq_length to {}",
                m.seq_length, m.max_position_embeddings),
    "model.max_position_embeddings"};
}

std::optional<Finding> mtp_position_embedding(const Context& ctx)
{
  const auto& m = ctx.spec.model;
  const auto& type = m.position_embedding_type;
  if (m.mtp_num_layers <= 0 || type == "learned_absolute" || type == "rope" || type == "mrope"
      || type == "none") {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("mtp_num_layers = {} with position_embedding_type \"{}\"",
                              m.mtp_num_layers, type),
                  fmt::format("Multi-Token Prediction (MTP) is not supported with '{}' position "
                              "embedding type. ...",
                              type)),
    "use position_embedding_type rope, mrope, learned_absolute or none, or mtp_num_layers = 0",
    "model.mtp_num_layers"};
}

std::optional<Finding> mla_vs_gqa(const Context& ctx)
{
  const auto& m = ctx.spec.model;
  if (is_bridge(ctx.spec) || !m.mla || m.num_query_groups <= 0
      || m.num_query_groups == m.num_attention_heads) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("multi-latent attention with num_query_groups = {}",
                              m.num_query_groups),
                  "Group query attention is mutually exclusive with multi latent attention."),
    "remove model.num_query_groups (--group-query-attention) for an MLA model",
    "model.num_query_groups"};
}

constexpr Rule k_model_rules[] = {
  {"model.required_args", Severity::error,
   "num_layers, hidden_size, num_attention_heads and seq_length must be set and positive",
   "[ML] megatron/training/arguments.py:1313-1317", required_args},
  {"model.hidden_divisible_by_heads", Severity::error,
   "without kv_channels, hidden_size must be divisible by num_attention_heads",
   "[ML] megatron/training/arguments.py:1331-1333", hidden_divisible_by_heads},
  {"model.max_position_embeddings", Severity::error,
   "max_position_embeddings must be >= seq_length",
   "[ML] megatron/training/arguments.py:1353-1356", max_position_embeddings},
  {"model.mtp_position_embedding", Severity::error,
   "MTP needs rope, mrope, learned_absolute or no position embedding",
   "[ML] megatron/training/arguments.py:1942-1948", mtp_position_embedding},
  {"model.mla_vs_gqa", Severity::error,
   "Megatron-LM: multi-latent attention excludes group query attention",
   "[ML] megatron/training/arguments.py:1973-1974", mla_vs_gqa},
};

} // namespace

std::span<const Rule> model_rules()
{
  return k_model_rules;
}

} // namespace lg::rules
