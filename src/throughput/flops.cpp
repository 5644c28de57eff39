#include "throughput/flops.hpp"

namespace lg::throughput {
namespace {

double gated(const config::ModelSpec& m)
{
  return config::gated(m.activation) ? 3.0
                                                                                                   : 2.0;
}

// Per token per layer, forward, in multiply-accumulates / 2 units as Bridge
// writes them (its terms are multiplied by 3 * 2 below).
double attention_term(const config::ModelSpec& m, double seq)
{
  const double h = m.hidden_size;
  const double heads = m.num_attention_heads;
  if (m.mla) {
    const auto& a = *m.mla;
    const double qk = a.qk_head_dim + a.qk_pos_emb_head_dim;
    const double q_term = a.q_lora_rank > 0 ? a.q_lora_rank * (h + heads * qk + 1) : h * heads * qk;
    return q_term + a.kv_lora_rank * (h + heads * (a.qk_head_dim + a.v_head_dim) + 1)
           + h * a.qk_pos_emb_head_dim + heads * a.v_head_dim * h + seq * heads * qk / 2
           + seq * heads * a.v_head_dim / 2;
  }
  const double q = heads * config::kv_channels(m);
  const double kv = static_cast<double>(config::num_query_groups(m)) * config::kv_channels(m);
  return h * (q + 2 * kv) + q * h + q * seq / 2 * 2;
}

} // namespace

double model_flops_per_token(const config::ModelSpec& m, int seq, double padded_vocab)
{
  const double h = m.hidden_size;
  const int layers = m.num_layers;
  int moe_layers = 0;
  for (int i = 0; i < layers; ++i) {
    moe_layers += config::is_moe_layer(m, i) ? 1 : 0;
  }
  int dense_layers = layers - moe_layers;
  const int mtp = m.mtp_num_layers;
  const bool last_moe = layers > 0 && config::is_moe_layer(m, layers - 1);
  (last_moe ? moe_layers : dense_layers) += mtp;
  const double fe = gated(m);
  double mlp = m.ffn_hidden_size * fe * dense_layers;
  if (m.moe) {
    mlp += static_cast<double>(m.moe->moe_ffn_hidden_size) * m.moe->router_topk * fe * moe_layers;
    mlp += static_cast<double>(m.moe->shared_expert_intermediate_size) * fe * moe_layers;
  }
  const double attention = attention_term(m, seq) * (layers + mtp);
  const double mtp_extra = mtp * (3 * h + 2 * h * h);
  return 6 * h * mlp + 6 * attention + 6 * mtp_extra + 6 * h * padded_vocab * (mtp + 1);
}

double model_flops_per_step(const config::JobSpec& spec)
{
  const double tokens =
      static_cast<double>(spec.training.global_batch_size) * spec.model.seq_length;
  double flops = tokens * model_flops_per_token(spec.model, spec.model.seq_length,
                                                static_cast<double>(config::padded_vocab_size(spec)));
  if (spec.peft.method == "lora") {
    flops *= 2.0 / 3.0;
  }
  return flops;
}

} // namespace lg::throughput
