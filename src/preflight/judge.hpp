// The preflight stage: JobSpec → judged job. Every command that judges a job
// (check, estimate, env, render, submit, the what-if table, the retry ladder,
// diagnose --job) asks this one function, so a setting is read once and every
// command gives the same verdict. Pure: no I/O.
#pragma once

#include "config/job_spec.hpp"
#include "env/allocator_settings.hpp"
#include "env/compose.hpp"
#include "env/environment.hpp"
#include "estimate/estimate.hpp"
#include "util/diagnostic.hpp"

#include <vector>

namespace lg::preflight {

struct Options
{
  env::Assignments overrides;  // `--set NAME=VALUE`, the highest environment layer
  bool with_estimate = true;   // estimate and rules; off: compose the environment only
  bool with_what_if = true;    // the what-if table (off inside what-if and retry)
};

struct JudgedJob
{
  config::JobSpec spec;
  env::Environment environment;     // composed; its findings are part of `findings`
  env::AllocatorSettings allocator;  // the composed PYTORCH_CUDA_ALLOC_CONF, parsed once
  estimate::Estimate estimate;      // empty when Options::with_estimate is off
  // Rule findings and environment findings (allocator_config_error among
  // them), errors first, then warnings, then advice; stable within a severity.
  std::vector<Diagnostic> findings;

  // True if any finding is an error (check exits 1, render and submit refuse).
  bool has_errors() const;
  // The error findings only, in order.
  std::vector<Diagnostic> errors() const;
};

// Judge `spec`: compose its environment, parse the allocator settings, estimate
// memory with them (a string PyTorch rejects is estimated as corrected, and
// the estimate says so), fill the what-if table and run the rules.
JudgedJob judge(const config::JobSpec& spec, const Options& options = {});

// Whether the native allocator's expandable segments are in effect for `spec`
// (its own [env] over the policy): the fact diagnose and the retry ladder use.
bool expandable_segments_on(const config::JobSpec& spec);

} // namespace lg::preflight
