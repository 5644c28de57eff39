#include "preflight/what_if.hpp"

#include "preflight/fixes.hpp"
#include "preflight/judge.hpp"

namespace lg::preflight {

std::vector<estimate::WhatIf> what_if_table(const JudgedJob& job, const Options& options)
{
  Options inner = options;
  inner.with_what_if = false;
  std::vector<estimate::WhatIf> rows;
  for (const std::string& fix : fix_ids()) {
    const std::optional<AppliedFix> applied = apply_fix(job.spec, fix);
    if (!applied) {
      continue;
    }
    const JudgedJob fixed = judge(applied->spec, inner);
    estimate::WhatIf row;
    row.fix = fix;
    row.description = applied->description;
    row.peak_bytes = fixed.estimate.peak_bytes;
    row.saves_bytes = job.estimate.peak_bytes - fixed.estimate.peak_bytes;
    row.throughput_cost = applied->throughput_cost;
    rows.push_back(std::move(row));
  }
  return rows;
}

} // namespace lg::preflight
