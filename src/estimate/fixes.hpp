// The memory fixes of the source document, as transformations of a JobSpec.
// Used by the what-if table (estimate), the retry ladder (launch) and
// diagnose's suggested changes.
#pragma once

#include "config/job_spec.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lg::estimate {

// Fix ids, in the source document's order: "expandable_segments",
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
// merged key by key).
std::optional<AppliedFix> apply_fix(const config::JobSpec& spec, std::string_view fix);

// Return true if the job's own env (spec.env) or the default policy leaves
// expandable segments on: the policy turns them on unless nccl_ub is set; the
// user's PYTORCH_CUDA_ALLOC_CONF is merged key by key, so only an explicit
// expandable_segments value other than True turns them off (as env::compose).
bool expandable_segments_enabled(const config::JobSpec& spec);

} // namespace lg::estimate
