// Printing an Estimate: the human table with per-component bars, and the
// `--json` document of `estimate` (the Estimate, field by field).
#pragma once

#include "config/job_spec.hpp"
#include "estimate/estimate.hpp"

#include <nlohmann/json.hpp>

namespace lg::cli {

struct GlobalOptions;

nlohmann::json to_json(const estimate::Estimate& estimate);

// Print the per-stage breakdown, the verdict and the what-if table.
void print_estimate(const GlobalOptions& global, const config::JobSpec& spec, const estimate::Estimate& estimate);

// One line: "peak 58.80 GiB of 79.65 GiB on pp rank 0: fits".
std::string verdict_line(const GlobalOptions& global, const estimate::Estimate& estimate);

} // namespace lg::cli
