// Persistent per-GPU model state: weights, main gradients and optimizer state
// by dtype and sharding (distributed optimizer over DP x CP for dense and
// expert-DP for routed experts, precision-aware optimizer, FSDP modes, CPU
// optimizer offload), FP8 weight caches, and LoRA (frozen base + adapters).
#pragma once

#include "config/job_spec.hpp"

namespace lg::estimate {

// Parameters resident on one GPU of a pipeline stage.
struct StageParameters
{
  double dense = 0;          // TP-sharded share + replicated params (incl. embeddings)
  double experts = 0;        // routed-expert params on this GPU
  double linear = 0;         // GEMM weights among dense (TE fp8 caches apply)
  double expert_linear = 0;  // GEMM weights among experts
  double lora = 0;           // LoRA adapter params on this GPU
  double largest_layer = 0;  // params of the largest layer on this GPU (FSDP gather buffer)
};

struct ModelStateBytes
{
  double weights = 0;
  double gradients = 0;
  double optimizer_state = 0;
  // The part of optimizer_state that the optimizer allocates lazily at its
  // first step (Adam's exp_avg/exp_avg_sq, momentum buffers): absent during
  // the forward/backward of the first iteration.
  double optimizer_moments = 0;
  double fp8_weight_cache = 0;
  double fsdp_gather_buffers = 0;
  // Transient of the optimizer step: the fp32 copy of the (bf16/fp16) main
  // gradients that the optimizer steps on, alive from the copy until the next
  // zero_grad; 0 when the gradients are already fp32 or the optimizer reads
  // them in place.
  double step_grad_copy = 0;
};

// What model_state_bytes reads from the job, derived once: the same for
// every pipeline stage of an estimate.
struct StateRates
{
  // What each DP shard group divides: weights, gradients, optimizer state.
  struct Sharding
  {
    double weights = 1;
    double grads = 1;
    double optimizer = 1;
  };
  // Per-parameter optimizer state before sharding: the master copy
  // (allocated with the optimizer) and the moments (at the first step).
  struct Optimizer
  {
    double master = 4;
    double moments = 8;
  };
  Sharding dense, expert;
  bool fp8 = false;         // fp8/fp4 recipe: TE's quantized weight cache
  double fp8_cache_bytes = 0;  // bytes of that cache per GEMM weight (0 or 1)
  double linear_bytes = 2;  // bytes of a GEMM weight (1 with fp8 primary weights)
  bool lora = false;
  bool frozen_language_model = false;
  double grad_bytes = 2;    // per main gradient
  double keep = 1;          // optimizer state left on the GPU (1 - CPU offload fraction)
  Optimizer linear, other;  // GEMM weights (Muon's), the rest
  bool step_grad_copy = false;  // the optimizer steps on an fp32 copy of the gradients
};
StateRates state_rates(const config::JobSpec& spec);

// Return the persistent bytes of `params` under the job's precision,
// optimizer, sharding and PEFT settings.
ModelStateBytes model_state_bytes(const config::JobSpec& spec, const StageParameters& params);
// The same from the job's rates.
ModelStateBytes model_state_bytes(const StateRates& rates, const StageParameters& params);

// Return the optimizer shard group size for dense params (DP x CP) and for
// routed experts (expert DP), at least 1.
// Both divided by --num-distributed-optimizer-instances (each instance keeps
// a full copy of the state over its share of the group).
int dense_shard_group(const config::JobSpec& spec);
int expert_shard_group(const config::JobSpec& spec);

} // namespace lg::estimate
