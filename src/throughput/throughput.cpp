// How a step is assembled. Per GPU, per microbatch of T = mbs x seq / cp tokens:
// each transformer layer's GEMMs (roofline, the job's precision; backward = 2x,
// LoRA 1x), core attention (bf16, causal; backward 2.5x forward as in
// FlashAttention), element-wise traffic (norms, residuals, RoPE, activation,
// MoE permutation, FP8 casts) over HBM, recomputed forward work, and the
// exposed TP, CP and EP communication; the last stage adds the logit layer and
// cross-entropy. The slowest stage sets the pace: m microbatches of it, plus
// the pipeline bubble of the mean stage, point-to-point transfers, the exposed
// data-parallel (or FSDP) collectives, activation offload and the optimizer.
#include "throughput/throughput.hpp"

#include "throughput/coverage.hpp"

#include "estimate/activations.hpp"
#include "estimate/model_state.hpp"
#include "estimate/pipeline.hpp"
#include "estimate/placement.hpp"
#include "throughput/flops.hpp"
#include "throughput/systems.hpp"
#include "throughput/terms.hpp"

#include <algorithm>
#include <cmath>

namespace lg::throughput {
namespace {

constexpr double k_act_bytes = 2;              // bf16 activations on the wire and in HBM
constexpr double k_attention_backward = 2.5;   // FlashAttention backward / forward work
constexpr double k_adam_bytes_per_param = 30;  // fp32 p, g, m, v read; p, m, v, bf16 p written

struct Setup
{
  const config::JobSpec& spec;
  SystemRates rates;
  int tp = 1, cp = 1, pp = 1, vpp = 1, ep = 1, etp = 1, dp = 1, m = 1, world = 1;
  int domain = 8, gpus_per_node = 8;
  double seq = 0, tokens = 0, h = 0;
  double rate = 0, rate_bf16 = 0, attention_rate = 0, hbm = 0;
  double in_bytes = 2;
  double backward_gemm = 2;  // dgrad + wgrad; LoRA: dgrad only
  bool sp = false, lora = false;
  double host_launch = 0;  // per kernel; 0 under CUDA graphs
  double bw_tp = 0, bw_cp = 0, bw_ep_fast = 0, bw_ep_slow = 0, bw_dp = 0, bw_edp = 0, bw_pp = 0;
  int ep_local = 1;
};

double link(const SystemRates& r, bool inside_domain)
{
  return inside_domain ? r.nvlink_bw * r.nvlink_efficiency : r.network_bw * r.network_efficiency;
}

// Bandwidth per rank of a ring collective over `group` ranks spaced `stride`
// apart in rank order: NVLink when the group sits in one NVLink domain;
// otherwise NCCL runs one ring per NIC, so the k members that share a domain
// bring k NICs to the boundary crossing: min(NVLink, k x NIC).
double group_bandwidth(const SystemRates& r, int group, int stride, int domain)
{
  const int per_domain = std::clamp(domain / std::max(1, stride), 1, std::max(1, group));
  if (per_domain >= group) {
    return link(r, true);
  }
  return std::min(link(r, true), per_domain * link(r, false));
}

Setup make_setup(const config::JobSpec& spec, const SystemRates& rates)
{
  Setup s{spec, rates};
  const auto& p = spec.parallelism;
  s.tp = std::max(1, p.tp);
  s.cp = std::max(1, p.cp);
  s.pp = std::max(1, p.pp);
  s.vpp = std::max(1, p.vpp.value_or(1));
  s.ep = std::max(1, p.ep);
  s.etp = std::max(1, config::expert_tensor_parallel_size(spec));
  s.world = std::max(1, config::world_size(spec));
  s.dp = std::max(1, config::data_parallel_size(spec));
  s.m = estimate::microbatches_per_step(spec);
  s.domain = std::max(1, spec.cluster.gpu_info.nvlink_domain);
  s.gpus_per_node = std::max(1, spec.cluster.gpus_per_node);
  s.seq = std::max(1, spec.model.seq_length);
  s.tokens = std::max(1, spec.training.micro_batch_size) * s.seq / s.cp;
  s.h = spec.model.hidden_size;
  s.rate = gemm_rate(s.rates, spec.training.precision);
  s.rate_bf16 = gemm_rate(s.rates, config::Precision::bf16);
  s.attention_rate = s.rates.bf16_flops * s.rates.attention_efficiency;
  s.hbm = s.rates.hbm_bw * s.rates.hbm_efficiency;
  s.in_bytes = config::is_fp4(spec.training.precision) ? 0.5 : config::is_fp8(spec.training.precision) ? 1.0 : 2.0;
  s.lora = spec.peft.method == "lora";
  s.backward_gemm = s.lora ? 1.0 : 2.0;
  s.sp = p.sequence_parallel && s.tp > 1;
  s.host_launch = spec.training.cuda_graphs == config::CudaGraphs::none ? rates.host_launch_s : 0;
  // Megatron's rank order is tp-cp-(ep)-dp-pp: TP innermost, PP outermost.
  s.bw_tp = group_bandwidth(s.rates, s.tp, 1, s.domain);
  s.bw_cp = group_bandwidth(s.rates, s.cp, s.tp, s.domain);
  s.ep_local = std::clamp(s.domain / s.etp, 1, s.ep);
  s.bw_ep_fast = link(s.rates, true);
  s.bw_ep_slow = link(s.rates, false);
  s.bw_dp = group_bandwidth(s.rates, s.dp * s.cp, s.tp, s.domain);
  s.bw_edp = group_bandwidth(s.rates, std::max(1, config::expert_data_parallel_size(spec)), s.ep * s.etp, s.domain);
  // Pipeline neighbours are tp x cp x dp ranks apart; the 1F1B chain passes every stage
  // boundary, so the slowest one paces it: NVLink when the whole pipeline sits in one NVLink
  // domain (a DGX node, or up to 72 GPUs of an NVL72 rack across its 4-GPU trays), else the
  // network.
  s.bw_pp = link(s.rates, s.world <= s.domain);
  return s;
}

// Forward work of one layer on one GPU for one microbatch, by part, seconds.
struct LayerForward
{
  double attention_gemm = 0;
  double mla_up_gemm = 0;  // part of attention_gemm (MLA up projections)
  double core_attention = 0;
  double mlp_gemm = 0;     // dense MLP, or shared experts on an MoE layer
  double expert_gemm = 0;  // routed experts + router
  // The GEMMs each TP collective is attached to (forward time): attention's
  // column-parallel input projections and row-parallel output projection, the
  // MLP's (dense, shared and routed experts) FC1 and FC2.
  double attention_row = 0;
  double mlp_column = 0, mlp_row = 0;
  double attention_column() const { return attention_gemm - attention_row; }
  double norm_elementwise = 0;        // norms, residual adds (sequence-parallel region)
  double other_elementwise = 0;       // RoPE, FP8 casts, permutation
  double activation_elementwise = 0;  // dense/shared activation function
  double expert_activation_elementwise = 0;
  double kernels = 0;  // forward kernels (GEMMs, element-wise, attention, collectives)
  double gemm() const { return attention_gemm + mlp_gemm + expert_gemm; }
  double elementwise() const
  {
    return norm_elementwise + other_elementwise + activation_elementwise + expert_activation_elementwise;
  }
};

// `groups` GEMMs of one shape (a grouped GEMM's experts) at `rate` scaled by
// the efficiency the shape reaches (terms.hpp, shape_efficiency).
double gemm(const Setup& s, double m, double n, double k, double in_bytes, double rate, double groups = 1)
{
  return groups * gemm_seconds(m, n, k, in_bytes, rate * shape_efficiency(m, n, k), s.hbm);
}

double elementwise_seconds(const Setup& s, double elements)
{
  return s.hbm > 0 ? elements * k_act_bytes / s.hbm : 0;
}

// FP8/FP4 casts per GEMM input element, in 2-byte element units: current
// scaling reads for the amax and again for the cast, writes 1 byte; MX and
// blockwise write row- and column-wise copies with scales.
double quant_factor(config::Precision precision)
{
  switch (precision) {
  case config::Precision::bf16:
  case config::Precision::fp16: return 0;
  case config::Precision::fp8_delayed: return 1.5;
  case config::Precision::fp8_cs: return 2.5;
  default: return 2.0;
  }
}

LayerForward layer_forward(const Setup& s, bool moe_layer)
{
  const auto& m = s.spec.model;
  LayerForward f;
  const double T = s.tokens;
  const double tp = s.tp;
  const double h = s.h;
  const double heads = m.num_attention_heads;
  const double gate = config::gated(m.activation);
  double q_width = 0;
  double attn_in = 0;  // GEMM input elements per token (for casts)
  if (m.mla) {
    const auto& a = *m.mla;
    const double qk = a.qk_head_dim + a.qk_pos_emb_head_dim;
    double g = 0;
    double up = 0;
    if (a.q_lora_rank > 0) {
      g += gemm(s, T, a.q_lora_rank, h, s.in_bytes, s.rate);
      up += gemm(s, T, heads * qk / tp, a.q_lora_rank, s.in_bytes, s.rate);
    } else {
      g += gemm(s, T, heads * qk / tp, h, s.in_bytes, s.rate);
    }
    g += gemm(s, T, a.kv_lora_rank + a.qk_pos_emb_head_dim, h, s.in_bytes, s.rate);
    up += gemm(s, T, heads * (a.qk_head_dim + a.v_head_dim) / tp, a.kv_lora_rank, s.in_bytes, s.rate);
    f.attention_row = gemm(s, T, h, heads * a.v_head_dim / tp, s.in_bytes, s.rate);
    f.attention_gemm = g + up + f.attention_row;
    f.mla_up_gemm = up;
    f.core_attention = 2 * T * s.seq * heads / tp * (qk + a.v_head_dim) / 2 / s.attention_rate;
    q_width = heads * qk / tp;
    attn_in = 2 * h + a.q_lora_rank + a.kv_lora_rank + heads * a.v_head_dim / tp;
    f.kernels += 5 + (a.q_lora_rank > 0 ? 1 : 0) + 2;  // GEMMs, q/kv low-rank norms
  } else {
    const double kvc = config::kv_channels(m);
    const double q = heads * kvc;
    const double kv = std::max(1.0, config::num_query_groups(m) / tp) * kvc;
    f.attention_row = gemm(s, T, h, q / tp, s.in_bytes, s.rate);
    f.attention_gemm = gemm(s, T, q / tp + 2 * kv, h, s.in_bytes, s.rate) + f.attention_row;
    f.core_attention = 2 * T * s.seq * heads / tp * (2 * kvc) / 2 / s.attention_rate;
    q_width = q / tp + kv;
    attn_in = h / (s.sp ? tp : 1) + q / tp;
    f.kernels += 2;  // QKV, proj
  }
  // Per layer: the attention block's norm, RoPE, residual add; core attention
  // once per CP ring step and a send/recv per step; the TP collectives of both
  // blocks (SP: an all-gather and a reduce-scatter each; else an all-reduce).
  const bool quantized = config::is_fp8(s.spec.training.precision) || config::is_fp4(s.spec.training.precision);
  f.kernels += 3 + s.cp + 2.0 * (s.cp - 1) + (tp > 1 ? (s.sp ? 4 : 2) : 0) + (quantized ? 2 : 0);
  const double qf = quant_factor(s.spec.training.precision);
  const double seq_region = s.sp ? tp : 1;  // norms/residuals split only under SP
  f.norm_elementwise = elementwise_seconds(s, T * 10 * h / seq_region);
  double mlp_in = 0;
  auto dense_mlp = [&](double ffn) {
    const double fc1 = gemm(s, T, ffn * (gate ? 2 : 1) / tp, h, s.in_bytes, s.rate);
    const double fc2 = gemm(s, T, h, ffn / tp, s.in_bytes, s.rate);
    f.mlp_gemm += fc1 + fc2;
    f.mlp_column += fc1;
    f.mlp_row += fc2;
    f.activation_elementwise += elementwise_seconds(s, T * 3 * ffn / tp);
    mlp_in += h / seq_region + ffn / tp;
    f.kernels += 3 + (quantized ? 2 : 0);  // FC1, activation, FC2 (+ their input casts)
  };
  f.kernels += 2;  // the MLP block's norm and residual add
  double permute = 0;
  if (moe_layer && m.moe) {
    const auto& e = *m.moe;
    const double experts = std::max(1, e.num_experts);
    const double topk = e.router_topk;
    const double local_experts = std::max(1.0, experts / s.ep);
    const double per_expert = T * topk * s.ep * s.etp / (tp * experts);
    const double ffn = e.moe_ffn_hidden_size;
    const double grouped = s.rate * s.rates.grouped_gemm_efficiency;
    const double fc1 = gemm(s, per_expert, ffn * (gate ? 2 : 1) / s.etp, h, s.in_bytes, grouped, local_experts)
                       + gemm(s, T / tp, experts, h, 2, s.rate_bf16);  // + router
    const double fc2 = gemm(s, per_expert, h, ffn / s.etp, s.in_bytes, grouped, local_experts);
    f.expert_gemm = fc1 + fc2;
    f.mlp_column += fc1;
    f.mlp_row += fc2;
    f.expert_activation_elementwise = elementwise_seconds(s, T * topk * 3 * ffn / tp);
    permute = 4 * T * topk * h / tp;
    // Router GEMM, softmax/top-k/aux loss, permute and unpermute, grouped FC1,
    // activation, grouped FC2 (+ casts), dispatch and combine all-to-alls.
    // A grouped GEMM is one kernel per local expert: Transformer Engine's
    // GroupedLinear (Megatron-LM TEGroupedMLP) issues one cuBLAS GEMM per
    // expert over 4 streams (transformer_engine/common/gemm/cublaslt_gemm.cu,
    // multi_stream_cublas_gemm), and SequentialMLP one GEMM per expert too.
    f.kernels += 9 + (quantized ? 2 : 0) + (s.ep > 1 ? 2 : 0) + expert_gemm_kernels(local_experts) - 2;
    mlp_in += topk * (h + ffn) / tp;
    if (e.shared_expert_intermediate_size > 0) {
      dense_mlp(e.shared_expert_intermediate_size);
    }
  } else {
    dense_mlp(m.ffn_hidden_size);
  }
  f.other_elementwise = elementwise_seconds(s, T * (2 * q_width + permute / T + qf * (attn_in + mlp_in)));
  return f;
}

struct LayerCost
{
  double compute = 0;             // forward + backward, no recompute
  double recompute = 0;           // extra forward work
  double tp = 0, cp = 0, ep = 0;  // exposed communication
  double forward = 0;             // forward compute (windows for overlap)
  double kernels = 0;             // kernels launched, forward + backward + recompute
};

// Fraction of a stage's layers that full recompute reruns.
double full_recompute_fraction(const Setup& s, int layers_per_chunk)
{
  const auto& r = s.spec.training.recompute;
  if (r.granularity != config::RecomputeGranularity::full) {
    return 0;
  }
  if (r.method == config::RecomputeMethod::uniform || layers_per_chunk <= 0) {
    return 1;
  }
  return std::clamp(static_cast<double>(r.num_layers) / layers_per_chunk, 0.0, 1.0);
}

double selective_recompute(const Setup& s, const LayerForward& f)
{
  const auto& r = s.spec.training.recompute;
  if (r.granularity != config::RecomputeGranularity::selective) {
    return 0;
  }
  double extra = 0;
  for (const std::string& module : config::recompute_modules(r)) {
    if (module == "core_attn") {
      extra += f.core_attention;
    } else if (module == "mlp") {
      extra += f.mlp_gemm + f.activation_elementwise;
      if (f.expert_gemm > 0) {
        extra += f.expert_gemm + f.expert_activation_elementwise;
      }
    } else if (module == "moe") {
      extra += f.expert_gemm + f.expert_activation_elementwise;
    } else if (module == "moe_act") {
      extra += f.expert_activation_elementwise;
    } else if (module == "layernorm") {
      extra += f.norm_elementwise * 0.4;  // the norms, not the residual adds
    } else if (module == "mla_up_proj") {
      extra += f.mla_up_gemm;
    } else if (module == "shared_experts") {
      extra += f.expert_gemm > 0 ? f.mlp_gemm : 0;
    }
  }
  return extra;
}

LayerCost layer_cost(const Setup& s, bool moe_layer, double full_fraction)
{
  const LayerForward f = layer_forward(s, moe_layer);
  const auto& t = s.spec.training;
  LayerCost c;
  c.forward = f.gemm() + f.core_attention + f.elementwise();
  const double gemm_total = f.gemm() * (1 + s.backward_gemm);
  c.compute = gemm_total + f.core_attention * (1 + k_attention_backward) + f.elementwise() * 3;
  c.recompute = full_fraction > 0 ? full_fraction * c.forward : selective_recompute(s, f);
  // Backward launches about twice the forward's kernels (dgrad and wgrad per
  // GEMM, each element-wise op's gradient); full recompute reruns the forward.
  c.kernels = f.kernels * (3 + full_fraction);
  const auto& m = s.spec.model;
  // TP: per block (attention, MLP) with SP 3 all-gathers + 2 reduce-scatters of
  // the T x h activation, without SP 2 all-reduces, each overlapped only with
  // the GEMM it is attached to (terms.hpp, tp_block_seconds).
  if (s.tp > 1) {
    const double one = ring_seconds(s.tokens * s.h * k_act_bytes, s.tp, s.bw_tp);
    const double eff = s.rates.overlap_efficiency;
    const bool overlap = t.tp_comm_overlap && s.sp;
    c.tp = tp_block_seconds(one, f.attention_column(), f.attention_row, eff, s.sp, overlap, !s.lora)
           + tp_block_seconds(one, f.mlp_column, f.mlp_row, eff, s.sp, overlap, !s.lora);
  }
  if (s.cp > 1) {
    double kv_width = 0;
    if (m.mla) {
      kv_width = m.num_attention_heads / static_cast<double>(s.tp)
                 * (m.mla->qk_head_dim + m.mla->qk_pos_emb_head_dim + m.mla->v_head_dim);
    } else {
      kv_width = 2 * std::max(1.0, config::num_query_groups(m) / static_cast<double>(s.tp)) * config::kv_channels(m);
    }
    // Ring attention: cp - 1 KV exchanges forward, KV + dKV backward (3 in all),
    // each hidden behind the attention block of the previous step.
    const double comm = 3 * (s.cp - 1) * (s.tokens * kv_width * k_act_bytes / s.bw_cp + s.rates.p2p_latency_s);
    c.cp = exposed_seconds(comm, f.core_attention * (1 + k_attention_backward), s.rates.overlap_efficiency, true);
  }
  if (moe_layer && m.moe && s.ep > 1) {
    // Dispatch + combine, forward and backward: 4 all-to-alls of T x topk x h.
    // The flex dispatcher (DeepEP/HybridEP) sends a token once per remote
    // NVLink domain and forwards it inside over NVLink (terms.hpp,
    // node_dedup_factor): the cross-domain share shrinks, as if the network
    // were that much faster; the forwarding rides NVLink, which runs alongside.
    const double bytes = s.tokens / s.tp * m.moe->router_topk * s.h * k_act_bytes;
    const int domains = (s.ep + s.ep_local - 1) / s.ep_local;
    const double dedup = m.moe->token_dispatcher == "flex" ? node_dedup_factor(domains, m.moe->router_topk) : 1.0;
    const double comm = 4 * all_to_all_seconds(bytes, s.ep, s.ep_local, s.bw_ep_fast, s.bw_ep_slow / dedup);
    c.ep = exposed_seconds(comm, c.compute, s.rates.overlap_efficiency, t.overlap_moe_expert_parallel_comm);
  }
  return c;
}

// Logit layer + cross-entropy of one microbatch on the last stage (bf16: the
// output layer is not an FP8 GEMM), forward + backward.
double logits_seconds(const Setup& s)
{
  const double vocab = static_cast<double>(config::padded_vocab_size(s.spec));
  const double passes = s.lora ? 2 : 3;
  const double logit = gemm(s, s.tokens, vocab / s.tp, s.h, 2, s.rate_bf16) * passes;
  const double loss = s.hbm > 0 ? s.tokens * vocab / s.tp * 12 / s.hbm : 0;
  return logit + loss;
}

struct StageCost
{
  double compute = 0, recompute = 0, tp = 0, cp = 0, ep = 0;
  double forward = 0;
  double kernels = 0;
  double launch = 0;  // per-kernel overhead (terms.hpp, launch_seconds)
  double total() const { return compute + recompute + tp + cp + ep + launch; }
};

void add(StageCost& stage, const LayerCost& c, double n)
{
  stage.compute += n * c.compute;
  stage.recompute += n * c.recompute;
  stage.tp += n * c.tp;
  stage.cp += n * c.cp;
  stage.ep += n * c.ep;
  stage.forward += n * c.forward;
  stage.kernels += n * c.kernels;
}

}  // namespace

Throughput predict(const config::JobSpec& spec)
{
  return predict(spec, system_rates(spec.cluster.gpu_info));
}

Throughput predict(const config::JobSpec& spec, const SystemRates& rates)
{
  const Setup s = make_setup(spec, rates);
  Throughput out;
  out.model_flops_per_step = model_flops_per_step(spec);
  const auto shared_layouts = estimate::shared_pipeline_layout(spec);
  const auto& layouts = *shared_layouts;
  const int layers_per_chunk = std::max(1, spec.model.num_layers / std::max(1, s.pp * s.vpp));
  const double full = full_recompute_fraction(s, layers_per_chunk);
  const LayerCost dense = layer_cost(s, false, full);
  const LayerCost moe = spec.model.moe ? layer_cost(s, true, full) : dense;
  const double logits = logits_seconds(s);
  std::vector<StageCost> stages;
  for (const auto& layout : layouts) {
    StageCost stage;
    for (int layer : layout.layers) {
      add(stage, config::is_moe_layer(spec.model, layer) ? moe : dense, 1);
    }
    if (layout.has_output) {
      const bool last_moe = spec.model.num_layers > 0 && config::is_moe_layer(spec.model, spec.model.num_layers - 1);
      add(stage, last_moe ? moe : dense, layout.mtp_layers);
      stage.compute += logits * (1 + layout.mtp_layers);
      stage.forward += logits / 3 * (1 + layout.mtp_layers);
      stage.kernels += 6;  // output GEMM, cross-entropy, their gradients
    }
    // The stage's kernels of one microbatch against its GPU work (the
    // collectives' exposed time included: the host issues through them).
    stage.launch = launch_seconds(stage.total(), stage.kernels, s.rates.kernel_gap_s, s.host_launch);
    stages.push_back(stage);
  }
  if (stages.empty()) {
    stages.emplace_back();
  }
  std::size_t slowest = 0;
  double mean = 0;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    mean += stages[i].total() / static_cast<double>(stages.size());
    if (stages[i].total() > stages[slowest].total()) {
      slowest = i;
    }
  }
  const StageCost& pace = stages[slowest];
  const double m = s.m;
  const auto& t = spec.training;

  // Pipeline: bubble of the mean stage, and the transfers on the critical path
  // (warm-up and cool-down; every microbatch without interleaving, whose 1F1B
  // sends and receives are not overlapped).
  const double bubble = bubble_seconds(s.pp, s.vpp, mean);
  double p2p = 0;
  if (s.pp > 1) {
    const double bytes = s.tokens * s.h * k_act_bytes / (s.sp ? s.tp : 1);
    const double per_transfer = bytes / s.bw_pp + s.rates.p2p_latency_s;
    // Interleaved: warm-up/cool-down sends on the critical path, and the
    // steady-state sends of every chunk of every microbatch overlapped
    // (overlap_p2p_comm) but for (1 - eff) of each.
    p2p = s.vpp > 1 ? (2.0 * (s.pp - 1) + 2.0 * m * s.vpp * (1 - s.rates.overlap_efficiency)) * per_transfer
                    : 2.0 * (m + s.pp - 1) * per_transfer;
  }

  // Data parallel: gradients (reduce-scatter with the distributed optimizer,
  // all-reduce without) and the parameter all-gather, overlapped with the last
  // microbatch's backward and the first one's forward when asked to.
  const estimate::StageParameters params =
    estimate::stage_parameters(spec, layouts.empty() ? estimate::StageLayout{} : layouts[slowest]);
  const double grad_bytes = t.optimizer.grad_dtype == "bf16" ? 2 : 4;
  const double param_bytes = t.fp8_param_gather ? 1 : 2;
  const double dense_trainable = s.lora ? params.lora : params.dense;
  const double expert_trainable = s.lora ? 0 : params.experts;
  const int dense_group = estimate::dense_shard_group(spec);
  const int expert_group = estimate::expert_shard_group(spec);
  const double bw_edp = s.bw_edp;
  // `pace` is one microbatch of the slowest stage. Gradient sync is enabled only
  // for each stage's last microbatch, so the reduce overlaps that one backward
  // (Megatron-LM @ d98e8a6, megatron/core/pipeline_parallel/schedules.py:814-839:
  // the last microbatch runs outside no_sync_func(); :2430-2433 and :2459-2461:
  // enable_grad_sync() before the last backward of 1F1B); the parameter
  // all-gather is waited on by each bucket's forward pre-hook in the first
  // microbatch (megatron/core/distributed/distributed_data_parallel.py:517-538).
  // One microbatch each, not a share of one.
  const double backward_window = pace.compute * 2 / 3;
  const double forward_window = pace.forward;
  double dp = 0;
  double fsdp = 0;
  const bool fsdp_params = t.fsdp != config::Fsdp::none && t.fsdp_sharding == "optim_grads_params";
  if (fsdp_params) {
    // Parameters gathered for forward and again for backward, gradients
    // reduce-scattered, every microbatch, prefetched behind its compute. FSDP
    // shards every parameter, frozen ones included (Megatron-LM
    // megatron/core/distributed/fsdp: the base weights of a LoRA job are
    // sharded and gathered like any other), so the gathers move the whole
    // model; only the gradients are the trainable ones.
    const double dense_sharded = params.dense + (s.lora ? params.lora : 0);
    const double expert_sharded = params.experts;
    const double per_mb = ring_seconds(dense_sharded * param_bytes, dense_group, s.bw_dp) * 2
                          + ring_seconds(dense_trainable * grad_bytes, dense_group, s.bw_dp)
                          + ring_seconds(expert_sharded * param_bytes, expert_group, bw_edp) * 2
                          + ring_seconds(expert_trainable * grad_bytes, expert_group, bw_edp);
    fsdp = m * exposed_seconds(per_mb, pace.total() / m, s.rates.overlap_efficiency, true);
  } else {
    const bool sharded = t.distributed_optimizer || t.fsdp != config::Fsdp::none;
    const double reduce = (ring_seconds(dense_trainable * grad_bytes, dense_group, s.bw_dp)
                           + ring_seconds(expert_trainable * grad_bytes, expert_group, bw_edp))
                          * (sharded ? 1 : 2);
    const double gather = sharded ? ring_seconds(dense_trainable * param_bytes, dense_group, s.bw_dp)
                                      + ring_seconds(expert_trainable * param_bytes, expert_group, bw_edp)
                                  : 0;
    dp = exposed_seconds(reduce, backward_window, s.rates.overlap_efficiency, t.overlap_grad_reduce)
         + exposed_seconds(gather, forward_window, s.rates.overlap_efficiency, t.overlap_param_gather);
  }

  // Activation offload (cpu_offloading_layers): each offloaded layer's saved
  // activations go to the host in forward and come back in backward.
  double offload = 0;
  if (t.cpu_offloading_layers > 0 && !layouts.empty()) {
    const double layers = std::min<double>(t.cpu_offloading_layers, static_cast<double>(layouts[0].layers.size()));
    const double bytes = layers * estimate::layer_activation_bytes(spec, 0);
    const double comm = 2 * bytes / (s.rates.host_bw * s.rates.host_efficiency);
    const double window = layers * dense.compute;
    offload = m * exposed_seconds(comm, window, s.rates.overlap_efficiency, true);
  }

  // Optimizer step: memory-bound Adam over this GPU's shard.
  const bool sharded = t.distributed_optimizer || t.fsdp != config::Fsdp::none;
  const double shard = dense_trainable / (sharded ? dense_group : 1) + expert_trainable / (sharded ? expert_group : 1);
  const double optimizer = shard * k_adam_bytes_per_param / s.hbm;

  out.costs = {{"compute", m * pace.compute},
               {"recompute", m * pace.recompute},
               {"tp_comm", m * pace.tp},
               {"cp_comm", m * pace.cp},
               {"ep_comm", m * pace.ep},
               {"launch", m * pace.launch},
               {"pp_bubble", bubble},
               {"pp_p2p", p2p},
               {"dp_comm", dp},
               {"fsdp_comm", fsdp},
               {"offload", offload},
               {"optimizer", optimizer}};
  double step = 0;
  double largest = -1;
  for (const auto& [name, seconds] : out.costs) {
    step += seconds;
    if (name != "compute" && seconds > largest) {
      largest = seconds;
      out.main_cost = name;
    }
  }
  out.step_time_s = step;
  const double tokens = static_cast<double>(t.global_batch_size) * spec.model.seq_length;
  if (step > 0) {
    out.tflops_per_gpu = out.model_flops_per_step / s.world / step / 1e12;
    out.tokens_per_sec_per_gpu = tokens / s.world / step;
  }
  out.caveats = coverage_caveats(spec, s.rates);
  out.assumptions.push_back("balanced MoE routing; fine-grained activation offloading not modelled; "
                            "kernel launch: ~0.5 us per kernel on the GPU, the host bound without CUDA graphs");
  return out;
}

double cost(const Throughput& t, const std::string& name)
{
  for (const auto& [n, v] : t.costs) {
    if (n == name) {
      return v;
    }
  }
  return 0;
}

}  // namespace lg::throughput
