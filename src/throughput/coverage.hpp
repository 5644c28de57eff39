// What the throughput model's calibration does not cover for one job: the
// rates taken from elsewhere, and the job families whose published
// measurements the model is known to miss (docs/tune.md, "Where the held-out
// error sits"). Pure: no I/O.
#pragma once

#include "config/job_spec.hpp"
#include "throughput/systems.hpp"

#include <string>
#include <vector>

namespace lg::throughput {

// One sentence per gap, most specific first; empty when the calibration
// covers the job's GPU, precision and kind.
std::vector<std::string> coverage_caveats(const config::JobSpec& spec, const SystemRates& rates);

}  // namespace lg::throughput
