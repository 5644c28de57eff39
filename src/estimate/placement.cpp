#include "estimate/placement.hpp"

#include "estimate/parameters.hpp"

#include <algorithm>
#include <string>

namespace lg::estimate {
namespace {

bool targets(const config::JobSpec& spec, const char* name)
{
  const auto& t = spec.peft.targets;
  return std::find(t.begin(), t.end(), name) != t.end();
}

void add_layer(const config::JobSpec& spec, const LayerParameters& p, StageParameters& out, double copies = 1)
{
  const double tp = std::max(1, spec.parallelism.tp);
  const double expert_split =
      std::max(1, spec.parallelism.ep) * std::max(1, config::expert_tensor_parallel_size(spec));
  const double dense = static_cast<double>(p.attention + p.mlp) / tp + p.replicated;
  const double experts = static_cast<double>(p.routed) / expert_split;
  out.dense += copies * dense;
  out.experts += copies * experts;
  out.linear += copies * static_cast<double>(p.linear) / tp;
  out.expert_linear += copies * experts;
  out.largest_layer = std::max(out.largest_layer, dense + experts);
}

} // namespace

double lora_parameters(const config::JobSpec& spec, int layer)
{
  if (spec.peft.method != "lora") {
    return 0;
  }
  const auto& m = spec.model;
  const double r = spec.peft.rank;
  const double h = m.hidden_size;
  const double tp = std::max(1, spec.parallelism.tp);
  const double q = static_cast<double>(m.num_attention_heads) * config::kv_channels(m);
  const double kv = 2.0 * config::num_query_groups(m) * config::kv_channels(m);
  double params = 0;
  if (targets(spec, "linear_qkv")) {
    params += r * (h + q + kv) / tp;
  }
  if (targets(spec, "linear_proj")) {
    params += r * (q + h) / tp;
  }
  const bool moe = config::is_moe_layer(m, layer);
  const double ffn = moe ? m.moe->moe_ffn_hidden_size : m.ffn_hidden_size;
  const double copies =
      moe ? static_cast<double>(m.moe->num_experts) / std::max(1, spec.parallelism.ep) : 1.0;
  if (targets(spec, "linear_fc1")) {
    params += copies * r * (h + (config::gated(m.activation) ? 2 : 1) * ffn) / tp;
  }
  if (targets(spec, "linear_fc2")) {
    params += copies * r * (ffn + h) / tp;
  }
  return params;
}

StageParameters stage_parameters(const config::JobSpec& spec, const StageLayout& stage)
{
  LayerKinds kinds(spec.model);
  return stage_parameters(spec, stage, kinds);
}

StageParameters stage_parameters(const config::JobSpec& spec, const StageLayout& stage, const LayerKinds& kinds)
{
  StageParameters out;
  const auto& m = spec.model;
  // A layer's parameters depend on the layer only through whether it is an
  // MoE layer: one of each kind, times how many the stage holds.
  int count[2] = {0, 0};
  int example[2] = {-1, -1};
  if (const int kind = kinds.uniform_kind(stage.layers); kind >= 0) {
    count[kind] = static_cast<int>(stage.layers.size());
    example[kind] = stage.layers.back();
  } else {
    for (const int layer : stage.layers) {
      const int k = kinds.moe(layer) ? 1 : 0;
      ++count[k];
      example[k] = layer;
    }
  }
  for (int kind = 0; kind < 2; ++kind) {
    if (count[kind] > 0) {
      add_layer(spec, layer_parameters(m, example[kind]), out, count[kind]);
      out.lora += count[kind] * lora_parameters(spec, example[kind]);
    }
  }
  for (int i = 0; i < stage.mtp_layers; ++i) {
    add_layer(spec, layer_parameters(m, m.num_layers + i), out);
    add_layer(spec, mtp_extra_parameters(m), out);
  }
  const double tp = std::max(1, spec.parallelism.tp);
  const double vocab = static_cast<double>(embedding_parameters(m, config::padded_vocab_size(spec)));
  if (stage.has_embedding) {
    out.dense += vocab / tp + static_cast<double>(position_embedding_parameters(m));
  }
  if (stage.has_output) {
    out.dense += static_cast<double>(norm_parameters(m, m.hidden_size));
    // Untied models own an output layer; tied ones keep a copy of the
    // embedding on the last stage when it is not also the first.
    if (m.untie_embeddings_and_output_weights || !stage.has_embedding) {
      out.dense += vocab / tp;
    }
  }
  return out;
}

} // namespace lg::estimate
