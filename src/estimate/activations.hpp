// Activation memory per microbatch on one GPU: what autograd keeps for the
// backward pass per transformer layer (TP/SP/CP, GQA and MLA widths, gated
// MLPs, MoE top-k, fused vs unfused attention, selective and full recompute,
// FP8-saved GEMM inputs), the first stage's embedding, the last stage's
// logits and cross-entropy, LoRA's retained inputs, and one layer's backward
// working set.
#pragma once

#include "config/job_spec.hpp"
#include "estimate/layer_kinds.hpp"
#include "estimate/pipeline.hpp"

#include <vector>

namespace lg::estimate {

// Return the bytes one microbatch keeps alive for the backward of transformer
// layer `layer` (0-based, MTP layers past num_layers), without recompute of the
// whole layer (full recompute is applied by stage_activation_bytes).
double layer_activation_bytes(const config::JobSpec& spec, int layer);

// Return the bytes LoRA retains for layer `layer` beyond the base layer: with
// SP and TP > 1 the full gathered input of each eligible column-parallel
// target (linear_qkv, non-expert linear_fc1), unless
// sequence_parallel_input_regather keeps only the s/tp shard the base layer
// already saves. 0 without LoRA, without SP or with TP = 1.
double lora_retained_bytes(const config::JobSpec& spec, int layer);

// Return the bytes of one layer's input (the residual stream), what full
// recompute keeps per recomputed group.
double layer_input_bytes(const config::JobSpec& spec);

// Return the first stage's per-microbatch extras (token ids, embedding
// dropout mask).
double embedding_activation_bytes(const config::JobSpec& spec);

// Return the last stage's per-microbatch output-side bytes: final norm and
// output-layer inputs.
double output_activation_bytes(const config::JobSpec& spec);

// Return the elements of one microbatch's logits on this GPU (s*b*V/(tp*cp)).
double logits_elements(const config::JobSpec& spec);

// Return the transient bytes of the logits at the loss: bf16 logits plus
// their fp32 copy, which cross-entropy keeps as the softmax (s*b*V/tp each).
double logits_bytes(const config::JobSpec& spec);

// Return the transient bytes one layer needs during its backward (gradients
// of its widest intermediates, MoE dispatch buffers, unfused score grads).
double layer_working_set_bytes(const config::JobSpec& spec, int layer);

// Return the extra per-microbatch bytes of one MTP module beyond its
// transformer layer: the enorm/hnorm inputs and the eh_proj input (the
// concatenated embedding and hidden state), and its output layer's input.
double mtp_extra_activation_bytes(const config::JobSpec& spec);

// Return the last stage's deferred output-layer weight-gradient buffers
// (--defer-embedding-wgrad-compute): per deferred microbatch the output
// layer's input and its bf16 grad_output (tensor_parallel/layers.py
// embedding_activation_buffer, grad_output_buffer), for min(M, limit)
// microbatches (limit 0 = all).
double deferred_wgrad_bytes(const config::JobSpec& spec, int microbatches);

// Per-stage activation totals.
struct StageActivations
{
  double layers = 0;      // retained by in-flight microbatches (MTP layers included)
  double lora = 0;        // LoRA retained inputs (included in neither of the others)
  double embedding = 0;   // first stage extras
  double output = 0;      // last stage extras (not logits)
  double working_set = 0; // transient during a backward (largest layer, or one
                          // recompute group)
};

// The per-layer terms stage_activation_bytes adds up for one job, each
// computed once per kind of layer (a layer's terms depend on the layer only
// through whether it is an MoE layer) and kept: one per estimate, shared by
// its stages.
class LayerTerms
{
public:
  explicit LayerTerms(const config::JobSpec& spec) : spec_(spec), kinds_(spec.model) {}
  const config::JobSpec& spec() const { return spec_; }
  const LayerKinds& kinds() const { return kinds_; }
  double retained(int layer);     // layer_activation_bytes(spec, layer)
  double working_set(int layer);  // layer_working_set_bytes(spec, layer)
  double input();                 // layer_input_bytes(spec)

private:
  const config::JobSpec& spec_;
  LayerKinds kinds_;
  double retained_[2] = {-1, -1};  // per kind (dense, MoE); -1 not computed yet
  double working_[2] = {-1, -1};
  double input_ = -1;
};

// Return the activation totals of one pipeline rank: each chunk's layers
// times the microbatches of that chunk alive at the peak.
StageActivations stage_activation_bytes(const config::JobSpec& spec, const StageLayout& layout);
// The same with the job's layer terms (`terms.spec()` is the job).
StageActivations stage_activation_bytes(LayerTerms& terms, const StageLayout& layout);

} // namespace lg::estimate
