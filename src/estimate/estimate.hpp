// Per-GPU memory estimate of a training job, per pipeline stage, with named
// components, a verdict against the GPU's capacity and a what-if table of
// fixes. Pure: no I/O.
#pragma once

#include "config/job_spec.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lg::estimate {

// unknown: the job uses a feature that changes memory and that the estimate
// does not model (Estimate::not_modelled says which); no fits/oom claim.
enum class Verdict { fits, borderline, oom, unknown };

struct ParameterCounts
{
  std::int64_t total = 0;    // whole model, embeddings and MTP included
  std::int64_t active = 0;   // per token (top-k routed experts only)
  std::int64_t per_gpu = 0;  // on the most loaded GPU
  bool operator==(const ParameterCounts&) const = default;
};

struct StageEstimate
{
  int pp_rank = 0;
  int layers = 0;                  // transformer layers held by this rank (all VPP chunks)
  int in_flight_microbatches = 0;  // activations alive at the peak
  // What torch.cuda.max_memory_allocated() reports on this rank.
  double allocated_peak_bytes = 0;
  // The allocated peak of the first iteration only: the optimizer's moments
  // are allocated at its first step, after that iteration's forward/backward
  // peak (what a memory report after iteration 1 shows).
  double first_iteration_allocated_bytes = 0;
  // allocated + CUDA context, NCCL/library workspaces, fragmentation.
  double device_peak_bytes = 0;
  // Ordered, named components ("weights", "gradients", "optimizer_state",
  // "activations", "logits", …; at a peak in the optimizer step, the
  // persistent ones and "optimizer_step_grads"). The allocated ones sum to
  // allocated_peak_bytes; the rest ("cuda_context", "nccl_workspace",
  // "fragmentation") make up the difference to device_peak_bytes.
  // The names are string literals (static storage): no allocation per name.
  std::vector<std::pair<std::string_view, double>> components;
  // Error band of device_peak_bytes (one side, bytes): the validation error
  // of measured records with the same feature mix (estimate/error_band.cpp).
  double band_bytes = 0;
};

struct WhatIf
{
  std::string fix;          // fix id, see fixes.hpp
  std::string description;  // "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
  double peak_bytes = 0;    // predicted peak_bytes with the fix applied
  double saves_bytes = 0;   // current peak - peak with fix
  std::string throughput_cost;  // as measured in the Megatron Bridge memory-tuning guide, e.g. "-28% (Llama3 70B)"
};

struct Estimate
{
  ParameterCounts parameters;
  std::vector<StageEstimate> stages;  // one per pipeline rank
  double peak_bytes = 0;              // max device_peak_bytes over stages
  double capacity_bytes = 0;          // GPU capacity from the GPU preset
  int most_loaded_pp_rank = 0;
  Verdict verdict = Verdict::fits;
  std::vector<WhatIf> what_if;  // filled by the preflight (preflight/what_if.hpp), not here
  std::vector<std::string> assumptions;  // what the estimate assumed, in words
  // Features of the job that change memory but are not modelled, in words;
  // non-empty makes the verdict `unknown`.
  std::vector<std::string> not_modelled;
  double band_bytes = 0;  // band of the most loaded stage
  // The feature mix the band was taken from ("pp+fp8+recompute").
  std::string band_group;
};

struct Options
{
  // Whether PYTORCH_CUDA_ALLOC_CONF has expandable_segments:True in the job's
  // composed environment. Off adds a fragmentation allowance.
  bool expandable_segments = true;
  // Whether to write Estimate::assumptions (the explanatory lines): off in
  // tune's search, which reads only the numbers and the verdict.
  bool assumptions = true;
  // count_parameters(spec.model, config::padded_vocab_size(spec)) when the
  // caller has it already (tune: one model, many layouts; the padded vocabulary
  // changes with TP only), else null and the estimate counts. per_gpu is
  // ignored (the estimate fills it).
  const ParameterCounts* parameters = nullptr;
};

// Estimate per-GPU memory for `spec`. Never throws for a spec that passed
// config validation; degenerate values (zero layers, non-divisible sizes)
// produce a best-effort estimate and an assumption line.
Estimate estimate(const config::JobSpec& spec, const Options& options);

// Return "fits", "borderline", "oom" or "unknown".
const char* to_string(Verdict verdict);

} // namespace lg::estimate
