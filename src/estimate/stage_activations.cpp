// Stage-level activation totals: each chunk's in-flight microbatches times
// the retained per-layer bytes, full recompute (uniform / block), activation
// CPU offloading, MTP modules, and one layer's backward working set.
#include "estimate/activations.hpp"

#include <algorithm>
#include <cmath>

namespace lg::estimate {
namespace {

using config::RecomputeGranularity;
using config::RecomputeMethod;

// Bytes one chunk-microbatch retains for `layers` under full recompute (only
// group inputs kept) or none.
double chunk_retained(LayerTerms& terms, const std::vector<int>& layers)
{
  double sum = 0;
  if (terms.kinds().uniform_kind(layers) >= 0) {
    const double each = terms.retained(layers.front());
    for (std::size_t i = 0; i < layers.size(); ++i) {
      sum += each;  // added one by one, as below: the same rounding
    }
  } else {
    for (const int layer : layers) {
      sum += terms.retained(layer);
    }
  }
  const auto& r = terms.spec().training.recompute;
  const double count = static_cast<double>(layers.size());
  if (r.granularity != RecomputeGranularity::full || count <= 0) {
    return sum;
  }
  const double per_layer = sum / count;
  const double n = std::max(1, r.num_layers);
  const double input = terms.input();
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
    bytes = routed * (2 * 2 * m.hidden_size + 2 * ((config::gated(m.activation) ? 2 : 1) * f + f) / etp);
  } else {
    const double f = m.ffn_hidden_size;
    bytes = tokens * 2 * ((config::gated(m.activation) ? 2 : 1) * f + f) / tp;
  }
  if (spec.training.attention_backend == config::AttentionBackend::unfused) {
    // Gradient of the scores plus the recomputed/kept softmax, 2 B each.
    bytes = std::max(bytes, 4.0 * m.num_attention_heads * tokens * m.seq_length / tp);
  }
  return bytes;
}

double mtp_extra_activation_bytes(const config::JobSpec& spec)
{
  // enorm and hnorm inputs, the eh_proj input (2h wide) and the MTP output
  // layer's input, all in the sequence-parallel layout like the residual.
  return layer_input_bytes(spec) * (1 + 1 + 2 + 1);
}

double deferred_wgrad_bytes(const config::JobSpec& spec, int microbatches)
{
  const auto& t = spec.training;
  if (!t.defer_embedding_wgrad_compute) {
    return 0;
  }
  const int limit = t.wgrad_deferral_limit > 0 ? std::min(t.wgrad_deferral_limit, microbatches)
                                               : microbatches;
  const double grad_output = logits_elements(spec) * 2.0;
  return std::max(0, limit) * (layer_input_bytes(spec) + grad_output);
}

double LayerTerms::retained(int layer)
{
  double& slot = retained_[kinds_.moe(layer) ? 1 : 0];
  if (slot < 0) {
    slot = layer_activation_bytes(spec_, layer);
  }
  return slot;
}

double LayerTerms::working_set(int layer)
{
  double& slot = working_[kinds_.moe(layer) ? 1 : 0];
  if (slot < 0) {
    slot = layer_working_set_bytes(spec_, layer);
  }
  return slot;
}

double LayerTerms::input()
{
  if (input_ < 0) {
    input_ = layer_input_bytes(spec_);
  }
  return input_;
}

StageActivations stage_activation_bytes(const config::JobSpec& spec, const StageLayout& layout)
{
  LayerTerms terms(spec);
  return stage_activation_bytes(terms, layout);
}

StageActivations stage_activation_bytes(LayerTerms& terms, const StageLayout& layout)
{
  const config::JobSpec& spec = terms.spec();
  StageActivations out;
  double retained = 0;
  double lora = 0;
  double largest = 0;
  double working = 0;
  int largest_chunk = 0;
  const bool lora_layers = spec.peft.method == "lora";
  for (std::size_t c = 0; c < layout.chunk_layers.size(); ++c) {
    const auto& layers = layout.chunk_layers[c];
    const double in_flight = c < layout.chunk_in_flight.size() ? layout.chunk_in_flight[c] : 0;
    retained += chunk_retained(terms, layers) * in_flight;
    double chunk_lora = 0;
    if (!lora_layers && terms.kinds().uniform_kind(layers) >= 0) {
      // Every layer the same kind: the same bytes each.
      largest = std::max(largest, terms.retained(layers.front()));
      working = std::max(working, terms.working_set(layers.front()));
    } else {
      for (const int layer : layers) {
        chunk_lora += lora_layers ? lora_retained_bytes(spec, layer) : 0;
        largest = std::max(largest, terms.retained(layer));
        working = std::max(working, terms.working_set(layer));
      }
    }
    lora += chunk_lora * in_flight;
    largest_chunk = std::max(largest_chunk, static_cast<int>(layers.size()));
  }
  if (layout.mtp_layers > 0) {
    // MTP modules run in the last chunk, after the decoder, for every
    // microbatch of that chunk in flight.
    const double in_flight = layout.chunk_in_flight.empty() ? 1 : layout.chunk_in_flight.back();
    double mtp = 0;
    for (int i = 0; i < layout.mtp_layers; ++i) {
      mtp += terms.retained(spec.model.num_layers + i) + mtp_extra_activation_bytes(spec);
    }
    retained += mtp * in_flight;
  }
  const double count = static_cast<double>(layout.layers.size());
  const int offloaded = std::min(spec.training.cpu_offloading_layers, static_cast<int>(count));
  if (offloaded > 1 && spec.parallelism.pp == 1 && count > 0) {
    // Offloaded layers go to host memory; one layer stays as the copy buffer.
    const double per_layer = chunk_retained(terms, layout.layers) / count;
    retained -= (offloaded - 1) * per_layer * layout.in_flight_microbatches;
  }
  out.layers = std::max(0.0, retained);
  out.lora = lora;
  if (spec.training.recompute.granularity == RecomputeGranularity::full) {
    // The recomputed group is rebuilt in full during its backward.
    working += largest * std::min(std::max(1, spec.training.recompute.num_layers), largest_chunk);
  }
  out.working_set = working;
  if (layout.has_embedding) {
    out.embedding = embedding_activation_bytes(spec) * layout.in_flight_microbatches;
  }
  if (layout.has_output) {
    out.output = output_activation_bytes(spec);
  }
  return out;
}

} // namespace lg::estimate
