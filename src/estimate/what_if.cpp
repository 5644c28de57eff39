#include "estimate/what_if.hpp"

#include "estimate/fixes.hpp"

namespace lg::estimate {

std::vector<WhatIf> what_if_table(const config::JobSpec& spec, const Options& options,
                                  const Estimate& current)
{
  std::vector<WhatIf> rows;
  for (const std::string& fix : fix_ids()) {
    Options inner = options;
    inner.with_what_if = false;
    std::optional<AppliedFix> applied;
    if (fix == "expandable_segments") {
      // The caller's composed environment decides, not only spec.env.
      if (options.expandable_segments) {
        continue;
      }
      if (spec.training.nccl_ub) {
        continue;  // incompatible with NCCL user-buffer registration
      }
      applied = apply_fix(spec, fix);
      if (!applied) {
        applied = AppliedFix{spec, "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
                             "0% (no throughput cost)"};
      }
      inner.expandable_segments = true;
    } else {
      applied = apply_fix(spec, fix);
    }
    if (!applied) {
      continue;
    }
    const Estimate fixed = estimate(applied->spec, inner);
    WhatIf row;
    row.fix = fix;
    row.description = applied->description;
    row.peak_bytes = fixed.peak_bytes;
    row.saves_bytes = current.peak_bytes - fixed.peak_bytes;
    row.throughput_cost = applied->throughput_cost;
    rows.push_back(std::move(row));
  }
  return rows;
}

} // namespace lg::estimate
