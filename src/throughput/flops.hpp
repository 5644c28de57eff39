// Model FLOPs as Megatron Bridge counts them for "Model TFLOP/sec/GPU"
// (megatron/bridge/training/utils/flop_utils.py, transformer_flops): GEMMs of
// attention (GQA or MLA), dense MLP, routed (top-k) and shared experts, causal
// core attention (s/2 keys per query), MTP projections and the logit layer,
// times 3 for forward + backward. LoRA runs no weight-gradient GEMMs of the
// frozen base: 2 of the 3 passes. Pure.
#pragma once

#include "config/job_spec.hpp"

namespace lg::throughput {

// FLOPs of forward + backward per token of a `seq`-token sequence, for the
// whole model, with `padded_vocab` output rows.
double model_flops_per_token(const config::ModelSpec& model, int seq, double padded_vocab);

// Model FLOPs of one training step of `spec` (global batch x seq tokens),
// LoRA counted as forward + activation gradients only.
double model_flops_per_step(const config::JobSpec& spec);

} // namespace lg::throughput
