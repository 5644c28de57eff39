// Per-GPU memory estimate of a training job, per pipeline stage, with named
// components, a verdict against the GPU's capacity and a what-if table of
// fixes. Pure: no I/O.
#pragma once

#include "config/job_spec.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lg::estimate {

enum class Verdict { fits, borderline, oom };

struct ParameterCounts
{
  std::int64_t total = 0;    // whole model, embeddings and MTP included
  std::int64_t active = 0;   // per token (top-k routed experts only)
  std::int64_t per_gpu = 0;  // on the most loaded GPU
};

struct StageEstimate
{
  int pp_rank = 0;
  int layers = 0;                  // transformer layers held by this rank (all VPP chunks)
  int in_flight_microbatches = 0;  // activations alive at the peak
  // What torch.cuda.max_memory_allocated() reports on this rank.
  double allocated_peak_bytes = 0;
  // allocated + CUDA context, NCCL/library workspaces, fragmentation.
  double device_peak_bytes = 0;
  // Ordered, named components ("weights", "gradients", "optimizer_state",
  // "activations", "logits", …). The allocated ones sum to
  // allocated_peak_bytes; the rest ("cuda_context", "nccl_workspace",
  // "fragmentation") make up the difference to device_peak_bytes.
  std::vector<std::pair<std::string, double>> components;
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
};

struct Options
{
  // Whether PYTORCH_CUDA_ALLOC_CONF has expandable_segments:True in the job's
  // composed environment. Off adds a fragmentation allowance.
  bool expandable_segments = true;
};

// Estimate per-GPU memory for `spec`. Never throws for a spec that passed
// config validation; degenerate values (zero layers, non-divisible sizes)
// produce a best-effort estimate and an assumption line.
Estimate estimate(const config::JobSpec& spec, const Options& options);

// Return "fits", "borderline" or "oom".
const char* to_string(Verdict verdict);

} // namespace lg::estimate
