#include "preflight/judge.hpp"

#include "preflight/what_if.hpp"
#include "rules/rules.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace lg::preflight {

bool JudgedJob::has_errors() const
{
  return lg::has_errors(findings);
}

std::vector<Diagnostic> JudgedJob::errors() const
{
  std::vector<Diagnostic> out;
  std::copy_if(findings.begin(), findings.end(), std::back_inserter(out),
               [](const Diagnostic& d) { return d.severity == Severity::error; });
  return out;
}

JudgedJob judge(const config::JobSpec& spec, const Options& options)
{
  JudgedJob job;
  job.spec = spec;
  job.environment = env::compose(spec, options.overrides);
  job.allocator = env::allocator_settings_of(job.environment);
  if (options.with_estimate) {
    estimate::Options estimate_options;
    estimate_options.expandable_segments = job.allocator.expandable_in_effect();
    job.estimate = estimate::estimate(spec, estimate_options);
    if (job.allocator.error) {
      job.estimate.assumptions.push_back(fmt::format(
        "PYTORCH_CUDA_ALLOC_CONF is rejected by PyTorch ({}); estimated as if it were \"{}\"",
        env::k_allocator_config_error, job.allocator.error->corrected));
    }
    if (options.with_what_if) {
      job.estimate.what_if = what_if_table(job, options);
    }
    job.findings = rules::check(spec, job.estimate);
  }
  job.findings.insert(job.findings.end(), job.environment.findings.begin(), job.environment.findings.end());
  // What reading the inputs found: Hugging Face fields not usable, Bridge
  // settings that change memory but are not modelled.
  job.findings.insert(job.findings.end(), spec.input_findings.begin(), spec.input_findings.end());
  std::stable_sort(job.findings.begin(), job.findings.end(),
                   [](const Diagnostic& a, const Diagnostic& b) { return a.severity > b.severity; });
  return job;
}

bool expandable_segments_on(const config::JobSpec& spec)
{
  return env::allocator_settings_of(env::compose(spec, {})).expandable_in_effect();
}

} // namespace lg::preflight
