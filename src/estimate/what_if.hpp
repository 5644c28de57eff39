// The what-if table: each applicable fix re-estimated, with the bytes it saves
// and the throughput cost the source document measured.
#pragma once

#include "estimate/estimate.hpp"

#include <vector>

namespace lg::estimate {

// Return one row per fix of fix_ids() that applies to `spec`, in that order,
// each re-estimated without its own what-if table. `current` is the estimate
// of `spec` under `options`.
std::vector<WhatIf> what_if_table(const config::JobSpec& spec, const Options& options,
                                  const Estimate& current);

} // namespace lg::estimate
