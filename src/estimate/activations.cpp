#include "estimate/activations.hpp"

#include <algorithm>
#include <string>

namespace lg::estimate {
namespace {

using config::Activation;
using config::AttentionBackend;
using config::RecomputeGranularity;

// Shapes shared by the per-layer formulas, in elements.
struct Dims
{
  double tokens = 0;     // s * b / cp: tokens of one microbatch on this CP rank
  double seq = 0;        // full sequence length (for unfused scores)
  double h = 0;
  double tp = 1;
  double sp_div = 1;     // tp with sequence parallelism, else 1 (norm/residual regions)
  double lin = 2;        // bytes of a saved GEMM input (1 under FP8: TE keeps the fp8 copy)
  bool dropout = false;  // hidden dropout masks (1 byte per element)
  bool gated = false;
};

Dims dims_of(const config::JobSpec& spec)
{
  const auto& m = spec.model;
  const auto& p = spec.parallelism;
  Dims d;
  d.seq = m.seq_length;
  d.tokens = static_cast<double>(m.seq_length) * spec.training.micro_batch_size /
             std::max(1, p.cp);
  d.h = m.hidden_size;
  d.tp = std::max(1, p.tp);
  d.sp_div = p.sequence_parallel && p.tp > 1 ? d.tp : 1.0;
  d.lin = config::is_fp8(spec.training.precision) || config::is_fp4(spec.training.precision)
              ? 1.0
              : 2.0;
  d.dropout = m.hidden_dropout > 0;
  d.gated = config::gated(m.activation);
  return d;
}

bool recomputes(const config::JobSpec& spec, const char* module)
{
  return config::recomputes_module(spec.training.recompute, module);
}

// Fine-grained activation offloading moves what each listed module saves for
// backward to host memory (Megatron transformer_config.py offload_modules:
// attn_norm, qkv_linear, core_attn, attn_proj, mlp_norm, expert_fc1, moe_act).
// The module runs inside PipelineOffloadManager, whose saved_tensors_hooks
// offload every saved tensor of at least min_offloaded_tensor_size (1M)
// elements (pipeline_parallel/fine_grained_activation_offload.py __enter__,
// tensor_push, tensor_need_offloading_checker).
bool offloads(const config::JobSpec& spec, const char* module)
{
  const auto& t = spec.training;
  if (!t.fine_grained_activation_offloading) {
    return false;
  }
  return std::find(t.offload_modules.begin(), t.offload_modules.end(), module) !=
         t.offload_modules.end();
}

// `bytes` unless `module`'s input is offloaded.
double kept(const config::JobSpec& spec, const char* module, double bytes)
{
  return offloads(spec, module) ? 0.0 : bytes;
}

// Unfused attention materialises the a*s*s scores per sequence: softmax output
// (2 B), plus dropout mask (1 B) and dropout output (2 B) with attention dropout.
double score_bytes(const config::JobSpec& spec, const Dims& d)
{
  if (spec.training.attention_backend != AttentionBackend::unfused) {
    return 0;
  }
  // Kept per score: the 16-bit probabilities (saved by the softmax and the
  // probs x V bmm), and with dropout its mask and output. Megatron's
  // forward_torch_softmax in fp32 (core/fusions/fused_softmax.py: input.float(),
  // torch.nn.Softmax saves its fp32 output, then .half()/.bfloat16()) keeps the
  // fp32 probabilities besides the 16-bit copy the bmm or dropout reads.
  double per_element = spec.model.attention_dropout > 0 ? 5.0 : 2.0;
  if (spec.training.unfused_softmax_in_fp32) {
    per_element += spec.model.attention_dropout > 0 ? 2.0 : 4.0;
  }
  return per_element * spec.model.num_attention_heads * d.tokens * d.seq / d.tp;
}

double attention_bytes(const config::JobSpec& spec, const Dims& d)
{
  const auto& m = spec.model;
  const double a = m.num_attention_heads;
  double qkv = 0;     // Q, K, V after rope (bf16), TP-sharded
  double latent = 0;  // MLA down-projection outputs (replicated over TP)
  double v_dim = config::kv_channels(m);
  if (m.mla) {
    const auto& mla = *m.mla;
    const double qk = mla.qk_head_dim + mla.qk_pos_emb_head_dim;
    qkv = 2 * a * qk + a * mla.v_head_dim;
    latent = 2.0 * (mla.q_lora_rank + mla.kv_lora_rank + mla.qk_pos_emb_head_dim);
    v_dim = mla.v_head_dim;
    if (recomputes(spec, "mla_up_proj")) {
      qkv = 0;  // rebuilt from the latents in backward
    }
  } else {
    qkv = (a + 2.0 * config::num_query_groups(m)) * v_dim;
  }
  double bytes = kept(spec, "attn_norm", 2 * d.h / d.sp_div);  // input norm's input (residual)
  bytes += kept(spec, "qkv_linear", d.lin * d.h / d.sp_div);   // QKV GEMM input (norm output)
  bytes += kept(spec, "core_attn", 2 * qkv / d.tp) + latent * 2 / d.sp_div;
  const double context = a * v_dim / d.tp;  // attention output = projection input
  const bool fused = spec.training.attention_backend != AttentionBackend::unfused;
  if (fused && !recomputes(spec, "core_attn")) {
    bytes += kept(spec, "attn_proj", 2 * context) + 4 * a / d.tp;  // O and fp32 log-sum-exp kept by flash
    bytes += d.lin < 2 ? kept(spec, "attn_proj", d.lin * context) : 0;
  } else {
    bytes += kept(spec, "attn_proj", d.lin * context);
  }
  bytes += d.dropout ? d.h / d.sp_div : 0;  // dropout mask after the projection
  bytes *= d.tokens;
  if (!recomputes(spec, "core_attn")) {
    // Offloading core_attn offloads every tensor autograd saves inside it,
    // the unfused scores included (saved_tensors_hooks over the region).
    bytes += kept(spec, "core_attn", score_bytes(spec, d));
  }
  if (recomputes(spec, "layernorm") && !offloads(spec, "qkv_linear")) {
    bytes -= d.tokens * d.lin * d.h / d.sp_div;
  }
  return bytes;
}

// A (possibly gated) MLP of width `ffn` over `tokens` rows split `split` ways.
double mlp_core_bytes(const Dims& d, double ffn, double split, bool drop_act)
{
  const double fc1_out = d.gated ? 2 * ffn : ffn;
  double per_token = 2 * fc1_out / split;   // activation-function input
  per_token += drop_act ? 0 : d.lin * ffn / split;  // fc2 input
  return per_token;
}

double dense_mlp_bytes(const config::JobSpec& spec, const Dims& d)
{
  double per_token = kept(spec, "mlp_norm", 2 * d.h / d.sp_div);  // pre-MLP norm input
  if (recomputes(spec, "mlp")) {
    per_token += 2 * d.h / d.sp_div;       // the checkpoint keeps only the MLP input
  } else {
    per_token += d.lin * d.h / d.sp_div;   // fc1 input
    per_token += mlp_core_bytes(d, spec.model.ffn_hidden_size, d.tp, false);
    if (recomputes(spec, "layernorm")) {
      per_token -= d.lin * d.h / d.sp_div;
    }
  }
  per_token += d.dropout ? d.h / d.sp_div : 0;
  return per_token * d.tokens;
}

// Tokens this GPU's experts process per microbatch: each rank routes its
// tokens top-k times and the dispatcher gathers over expert-TP; EP trades
// tokens between ranks without removing any (balanced routing assumed).
double routed_tokens(const config::JobSpec& spec, const Dims& d)
{
  const auto& moe = *spec.model.moe;
  const double etp = config::expert_tensor_parallel_size(spec);
  return moe.router_topk * d.tokens / d.sp_div * etp;
}

// Per routed token: the expert activation's output that the multiplication
// by the routing probabilities keeps for their gradient. Megatron-LM
// core/transformer/moe/experts.py TEGroupedMLP.forward (bias_act_func) and
// core/transformer/mlp.py MLP.forward (per_token_scale, the SequentialMLP
// experts) compute `activation(x) * probs` in autograd; only the fused
// weighted SwiGLU/GeGLU kernels (weighted_bias_swiglu_impl, gated units) keep
// nothing but their input. A non-gated expert (gelu, relu) has no fused
// weighted path, so it always keeps this bf16 [tokens, ffn] tensor. Recomputed
// or offloaded moe_act keeps nothing on the device.
double probs_scaled_activation_bytes(const config::JobSpec& spec, const Dims& d, double ffn_local)
{
  if (d.gated || recomputes(spec, "moe_act") || offloads(spec, "moe_act")) {
    return 0;
  }
  return 2 * ffn_local;
}

double moe_bytes(const config::JobSpec& spec, const Dims& d)
{
  const auto& moe = *spec.model.moe;
  const double local = d.tokens / d.sp_div;
  double bytes = kept(spec, "mlp_norm", local * 2 * d.h);  // pre-MLP norm input
  if (recomputes(spec, "moe")) {
    return bytes + local * 2 * d.h;
  }
  bytes += local * 2 * d.h;                       // router / expert input (norm output)
  bytes += local * moe.num_experts * 4.0 * 2;     // fp32 router logits and probabilities
  const double etp = config::expert_tensor_parallel_size(spec);
  const double routed = routed_tokens(spec, d);
  // Per routed token: permuted fc1 input, fc1 output, fc2 input, and the fc2
  // output that unpermute keeps to differentiate the routing probabilities.
  bytes += routed * (kept(spec, "expert_fc1", d.lin * d.h) + 2 * d.h);
  const double ffn = moe.moe_ffn_hidden_size;
  const double act_input = 2 * (d.gated ? 2 * ffn : ffn) / etp;
  const double core = mlp_core_bytes(d, ffn, etp, recomputes(spec, "moe_act"));
  bytes += routed * (core - (offloads(spec, "moe_act") ? act_input : 0.0));
  bytes += routed * probs_scaled_activation_bytes(spec, d, ffn / etp);
  if (moe.shared_expert_intermediate_size > 0 && !recomputes(spec, "shared_experts")) {
    bytes += d.tokens * mlp_core_bytes(d, moe.shared_expert_intermediate_size, d.tp, false);
  }
  bytes += d.dropout ? local * d.h : 0;
  return bytes;
}

} // namespace

double layer_activation_bytes(const config::JobSpec& spec, int layer)
{
  const Dims d = dims_of(spec);
  const double attention = attention_bytes(spec, d);
  if (config::is_moe_layer(spec.model, layer)) {
    return attention + moe_bytes(spec, d);
  }
  return attention + dense_mlp_bytes(spec, d);
}

double lora_retained_bytes(const config::JobSpec& spec, int layer)
{
  const auto& p = spec.parallelism;
  if (spec.peft.method != "lora" || !p.sequence_parallel || p.tp <= 1 ||
      spec.peft.sequence_parallel_input_regather) {
    return 0;
  }
  const Dims d = dims_of(spec);
  const auto& targets = spec.peft.targets;
  const auto has = [&](const char* t) {
    return std::find(targets.begin(), targets.end(), t) != targets.end();
  };
  double eligible = has("linear_qkv") ? 1 : 0;
  if (has("linear_fc1") && !config::is_moe_layer(spec.model, layer)) {
    eligible += 1;
  }
  return eligible * d.tokens * d.h * 2;  // the full gathered input, not /tp
}

double layer_input_bytes(const config::JobSpec& spec)
{
  const Dims d = dims_of(spec);
  return d.tokens * 2 * d.h / d.sp_div;
}

double embedding_activation_bytes(const config::JobSpec& spec)
{
  const Dims d = dims_of(spec);
  double bytes = d.tokens * 8;  // int64 token ids
  bytes += d.dropout ? d.tokens * d.h / d.sp_div : 0;
  return bytes;
}

double output_activation_bytes(const config::JobSpec& spec)
{
  const Dims d = dims_of(spec);
  return d.tokens * (2 * d.h / d.sp_div) * 2;  // final norm input, output-layer input
}

double logits_elements(const config::JobSpec& spec)
{
  const Dims d = dims_of(spec);
  return d.tokens * static_cast<double>(config::padded_vocab_size(spec)) / d.tp;
}

double logits_bytes(const config::JobSpec& spec)
{
  const std::string& ce = spec.training.cross_entropy_fusion;
  // Megatron vocab_parallel_cross_entropy: bf16 logits plus the fp32 copy it
  // exponentiates in place and saves (tensor_parallel/cross_entropy.py
  // calculate_logits_max .float(), exp(out=)). The native fusion runs the
  // same steps under jit_fuser (fusions/fused_cross_entropy.py), whose
  // functionalised in-place ops give exp_logits its own fp32 buffer: one more
  // fp32 copy. Transformer Engine's parallel_cross_entropy computes the loss
  // and writes the gradient into the bf16 logits in place: no fp32 copy.
  const double per_element = ce == "te" ? 2.0 : ce == "native" ? 2.0 + 4 + 4 : 2.0 + 4;
  return logits_elements(spec) * per_element;
}

} // namespace lg::estimate
