// The parallelism fixes (used by apply_fix).
#pragma once

#include "preflight/fixes.hpp"

namespace lg::preflight {

// Double PP: DP halves on the same GPUs when it is even, else the node count
// doubles to keep DP. nullopt when layers (or VPP chunks) do not divide, with
// uneven stages, or with activation offloading (needs PP = 1).
std::optional<AppliedFix> fix_increase_pp(const config::JobSpec& spec);

// Double TP within the NVLink domain, heads and query groups permitting; DP
// halves (or nodes double when DP is odd).
std::optional<AppliedFix> fix_increase_tp(const config::JobSpec& spec);

} // namespace lg::preflight
