// The what-if table: each applicable fix applied to the job (JobSpec →
// JobSpec, fixes.hpp) and the result judged again, with the bytes it saves and
// the throughput cost upstream measured.
#pragma once

#include "estimate/estimate.hpp"

#include <vector>

namespace lg::preflight {

struct JudgedJob;
struct Options;

// Return one row per fix of fix_ids() that applies to `job`, in that order;
// each fixed job is judged with `options` but without its own what-if table.
std::vector<estimate::WhatIf> what_if_table(const JudgedJob& job, const Options& options);

} // namespace lg::preflight
