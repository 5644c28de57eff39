#include "estimate/parameters.hpp"

#include <algorithm>

namespace lg::estimate {
namespace {

using config::Activation;
using config::ModelSpec;

// An MLP of width `ffn`: fc1 (2*ffn wide when gated) and fc2, with biases when
// add_bias_linear. Return {all parameters, GEMM weights only}.
std::pair<std::int64_t, std::int64_t> mlp_parameters(const ModelSpec& model, std::int64_t ffn)
{
  const std::int64_t h = model.hidden_size;
  const std::int64_t fc1_out = config::gated(model.activation) ? 2 * ffn : ffn;
  const std::int64_t weights = h * fc1_out + ffn * h;
  const std::int64_t biases = model.add_bias_linear ? fc1_out + h : 0;
  return {weights + biases, weights};
}

// Standard (GQA) attention: Q and O are a*d wide, K and V g*d wide.
std::pair<std::int64_t, std::int64_t> gqa_parameters(const ModelSpec& model)
{
  const std::int64_t h = model.hidden_size;
  const std::int64_t a = model.num_attention_heads;
  const std::int64_t g = config::num_query_groups(model);
  const std::int64_t d = config::kv_channels(model);
  const std::int64_t qkv_out = (a + 2 * g) * d;
  const std::int64_t weights = h * qkv_out + a * d * h;
  std::int64_t biases = 0;
  if (model.add_qkv_bias || model.add_bias_linear) {
    biases += qkv_out;
  }
  if (model.add_bias_linear) {
    biases += h;
  }
  return {weights + biases, weights};
}

// Multi-latent attention (DeepSeek-V2/V3): optional q compression, kv
// compression with a decoupled rope key, and the output projection. Latent
// norms are returned separately (replicated).
struct MlaCounts
{
  std::int64_t linear = 0;
  std::int64_t norms = 0;
};

MlaCounts mla_parameters(const ModelSpec& model)
{
  const auto& m = *model.mla;
  const std::int64_t h = model.hidden_size;
  const std::int64_t a = model.num_attention_heads;
  const std::int64_t q_head = m.qk_head_dim + m.qk_pos_emb_head_dim;
  MlaCounts c;
  if (m.q_lora_rank > 0) {
    c.linear += h * m.q_lora_rank + static_cast<std::int64_t>(m.q_lora_rank) * a * q_head;
    c.norms += norm_parameters(model, m.q_lora_rank);
  } else {
    c.linear += h * a * q_head;
  }
  c.linear += h * (m.kv_lora_rank + m.qk_pos_emb_head_dim);
  c.linear += static_cast<std::int64_t>(m.kv_lora_rank) * a * (m.qk_head_dim + m.v_head_dim);
  c.norms += norm_parameters(model, m.kv_lora_rank);
  c.linear += a * m.v_head_dim * h;
  return c;
}

std::int64_t router_parameters(const ModelSpec& model)
{
  const auto& moe = *model.moe;
  // The expert bias of aux-loss-free routing is a buffer in Megatron, but
  // published counts (DeepSeek-V3) include it, so it is counted.
  return static_cast<std::int64_t>(model.hidden_size) * moe.num_experts
         + (moe.router_bias ? moe.num_experts : 0);
}

} // namespace

std::int64_t norm_parameters(const config::ModelSpec& model, int width)
{
  const std::int64_t w = width;
  return model.normalization == config::Normalization::layer_norm ? 2 * w : w;
}

LayerParameters layer_parameters(const config::ModelSpec& model, int layer)
{
  LayerParameters p;
  const int h = model.hidden_size;
  p.replicated += 2 * norm_parameters(model, h);  // input and pre-MLP norms
  if (model.mla) {
    const auto mla = mla_parameters(model);
    p.attention = mla.linear;
    p.linear += mla.linear;
    p.replicated += mla.norms;
  } else {
    const auto [all, weights] = gqa_parameters(model);
    p.attention = all;
    p.linear += weights;
    if (model.qk_layernorm) {
      p.replicated += 2 * norm_parameters(model, config::kv_channels(model));
    }
  }
  if (!config::is_moe_layer(model, layer)) {
    const auto [all, weights] = mlp_parameters(model, model.ffn_hidden_size);
    p.mlp = all;
    p.linear += weights;
    return p;
  }
  const auto& moe = *model.moe;
  if (moe.shared_expert_intermediate_size > 0) {
    const auto [all, weights] = mlp_parameters(model, moe.shared_expert_intermediate_size);
    p.mlp = all + (moe.shared_expert_gate ? h : 0);
    p.linear += weights;
  }
  const auto expert = mlp_parameters(model, moe.moe_ffn_hidden_size).first;
  p.routed = expert * moe.num_experts;
  p.routed_active = expert * std::min(moe.router_topk, moe.num_experts);
  p.replicated += router_parameters(model);
  return p;
}

LayerParameters mtp_extra_parameters(const config::ModelSpec& model)
{
  LayerParameters p;
  const std::int64_t h = model.hidden_size;
  p.mlp = 2 * h * h;  // eh_proj: concat(embedding, hidden) -> hidden
  p.linear = p.mlp;
  p.replicated = 3 * norm_parameters(model, model.hidden_size);  // enorm, hnorm, final norm
  return p;
}

std::int64_t embedding_parameters(const config::ModelSpec& model, std::int64_t vocab)
{
  return vocab * model.hidden_size;
}

std::int64_t position_embedding_parameters(const config::ModelSpec& model)
{
  if (model.position_embedding_type != "learned_absolute") {
    return 0;
  }
  const std::int64_t positions =
      model.max_position_embeddings > 0 ? model.max_position_embeddings : model.seq_length;
  return positions * model.hidden_size;
}

ParameterCounts count_parameters(const config::ModelSpec& model, std::int64_t vocab)
{
  // Summed in double and saturated: extreme (validated but absurd) sizes
  // must not overflow into negative counts.
  double total = 0;
  double inactive = 0;
  const int layers = model.num_layers + std::max(0, model.mtp_num_layers);
  for (int layer = 0; layer < layers; ++layer) {
    const auto p = layer_parameters(model, layer);
    total += static_cast<double>(p.total());
    inactive += static_cast<double>(p.routed - p.routed_active);
  }
  if (model.mtp_num_layers > 0) {
    total += model.mtp_num_layers * static_cast<double>(mtp_extra_parameters(model).total());
  }
  const double embedding = static_cast<double>(embedding_parameters(model, vocab));
  total += embedding * (model.untie_embeddings_and_output_weights ? 2 : 1);
  total += static_cast<double>(position_embedding_parameters(model));
  total += static_cast<double>(norm_parameters(model, model.hidden_size));  // final norm
  const auto clamp = [](double v) {
    constexpr double k_max = 9.0e18;  // below INT64_MAX
    return static_cast<std::int64_t>(std::clamp(v, 0.0, k_max));
  };
  ParameterCounts counts;
  counts.total = clamp(total);
  counts.active = clamp(total - inactive);
  return counts;
}

} // namespace lg::estimate
