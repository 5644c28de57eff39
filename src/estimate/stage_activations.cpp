// Stage-level activation totals: in-flight microbatches times the retained
// per-layer bytes, full recompute (uniform / block), activation CPU
// offloading, and one layer's backward working set.
#include "estimate/activations.hpp"

#include <algorithm>
#include <cmath>

namespace lg::estimate {
namespace {

using config::RecomputeGranularity;
using config::RecomputeMethod;

bool gated(const config::ModelSpec& m)
{
  return m.activation == config::Activation::swiglu || m.activation == config::Activation::geglu;
}

// Bytes one chunk-microbatch retains for `count` layers averaging `per_layer`
// bytes, under full recompute (only group inputs kept) or none.
double chunk_retained(const config::JobSpec& spec, double count, double per_layer)
{
  const auto& r = spec.training.recompute;
  if (r.granularity != RecomputeGranularity::full || count <= 0) {
    return count * per_layer;
  }
  const double n = std::max(1, r.num_layers);
  const double input = layer_input_bytes(spec);
  if (r.method == RecomputeMethod::uniform) {
    return std::ceil(count / n) * input;
  }
  const double recomputed = std::min(n, count);
  return recomputed * input + (count - recomputed) * per_layer;
}

} // namespace

double layer_working_set_bytes(const config::JobSpec& spec, int layer)
{
  const auto& m = spec.model;
  const auto& p = spec.parallelism;
  const double tokens = static_cast<double>(m.seq_length) * spec.training.micro_batch_size /
                        std::max(1, p.cp);
  const double tp = std::max(1, p.tp);
  const double sp_div = p.sequence_parallel && p.tp > 1 ? tp : 1.0;
  double bytes = 0;
  if (config::is_moe_layer(m, layer)) {
    const auto& moe = *m.moe;
    const double etp = config::expert_tensor_parallel_size(spec);
    const double routed = moe.router_topk * tokens / sp_div * etp;
    const double f = moe.moe_ffn_hidden_size;
    // Dispatch send/receive buffers plus gradients of the expert intermediates.
    bytes = routed * (2 * 2 * m.hidden_size + 2 * ((gated(m) ? 2 : 1) * f + f) / etp);
  } else {
    const double f = m.ffn_hidden_size;
    bytes = tokens * 2 * ((gated(m) ? 2 : 1) * f + f) / tp;
  }
  if (spec.training.attention_backend == config::AttentionBackend::unfused) {
    // Gradient of the scores plus the recomputed/kept softmax, 2 B each.
    bytes = std::max(bytes, 4.0 * m.num_attention_heads * tokens * m.seq_length / tp);
  }
  return bytes;
}

StageActivations stage_activation_bytes(const config::JobSpec& spec,
                                        const std::vector<int>& layers, int chunks,
                                        int in_flight_chunks, int in_flight_microbatches,
                                        bool has_embedding, bool has_output)
{
  StageActivations out;
  double sum = 0;
  double lora = 0;
  double largest = 0;
  double working = 0;
  for (const int layer : layers) {
    const double bytes = layer_activation_bytes(spec, layer);
    sum += bytes;
    lora += lora_retained_bytes(spec, layer);
    largest = std::max(largest, bytes);
    working = std::max(working, layer_working_set_bytes(spec, layer));
  }
  const double count = static_cast<double>(layers.size());
  const double per_layer = count > 0 ? sum / count : 0;
  const double per_chunk_layers = count / std::max(1, chunks);
  double retained = chunk_retained(spec, per_chunk_layers, per_layer) * in_flight_chunks;
  const int offloaded = std::min(spec.training.cpu_offloading_layers, static_cast<int>(count));
  if (offloaded > 1 && spec.parallelism.pp == 1) {
    // Offloaded layers go to host memory; one layer stays as the copy buffer.
    retained -= (offloaded - 1) * per_layer * in_flight_microbatches;
  }
  out.layers = std::max(0.0, retained);
  out.lora = count > 0 ? lora / std::max(1, chunks) * in_flight_chunks : 0;
  if (spec.training.recompute.granularity == RecomputeGranularity::full) {
    // The recomputed group is rebuilt in full during its backward.
    working += largest * std::min<double>(std::max(1, spec.training.recompute.num_layers),
                                          per_chunk_layers);
  }
  out.working_set = working;
  if (has_embedding) {
    out.embedding = embedding_activation_bytes(spec) * in_flight_microbatches;
  }
  if (has_output) {
    out.output = output_activation_bytes(spec);
  }
  return out;
}

} // namespace lg::estimate
