// The memory fixes of the Megatron Bridge memory-tuning guide, as
// transformations of a JobSpec (JobSpec → JobSpec). Every fixed job is judged
// again through the preflight: the what-if table (what_if.hpp) and the retry
// ladder (launch) use them.
#pragma once

#include "config/job_spec.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lg::preflight {

// Fix ids, in the memory-tuning guide's order: "expandable_segments",
// "lora_input_regather", "recompute_core_attn", "increase_pp",
// "recompute_mlp", "distributed_optimizer", "increase_tp".
const std::vector<std::string>& fix_ids();

struct AppliedFix
{
  config::JobSpec spec;     // the job with the fix applied
  std::string description;  // what changed, one line ("pp 4 -> 8, dp 2 -> 1")
  std::string throughput_cost;
};

// Apply `fix` to `spec`. Return nullopt when the fix does not apply (already
// on, no LoRA, no SP, no GPUs to grow PP while keeping DP, …).
// `expandable_segments` is represented in spec.env (PYTORCH_CUDA_ALLOC_CONF,
// merged key by key) and applies only when the composed environment does not
// already have them in effect.
std::optional<AppliedFix> apply_fix(const config::JobSpec& spec, std::string_view fix);

} // namespace lg::preflight
