// The preflight shared by check, render and submit: estimate + rules +
// environment findings, so every command judges a job the same way.
#pragma once

#include "config/job_spec.hpp"
#include "estimate/estimate.hpp"
#include "util/diagnostic.hpp"

#include <vector>

namespace lg::cli {

struct Preflight
{
  estimate::Estimate estimate;
  std::vector<Diagnostic> findings;  // rules first, then environment
};

// Run the preflight for `spec`.
Preflight preflight(const config::JobSpec& spec);

} // namespace lg::cli
