#include "cli/preflight.hpp"

#include "env/compose.hpp"
#include "rules/rules.hpp"

#include <algorithm>

namespace lg::cli {

Preflight preflight(const config::JobSpec& spec)
{
  Preflight result;
  const env::Environment environment = env::compose(spec, {});
  estimate::Options options;
  options.expandable_segments = env::has_expandable_segments(environment);
  result.estimate = estimate::estimate(spec, options);
  result.findings = rules::check(spec, result.estimate);
  result.findings.insert(result.findings.end(), environment.findings.begin(), environment.findings.end());
  // What reading the inputs found (Hugging Face fields not usable, Bridge
  // settings not modelled).
  result.findings.insert(result.findings.end(), spec.input_findings.begin(), spec.input_findings.end());
  // Errors first, then warnings, then advice; stable within a severity.
  std::stable_sort(result.findings.begin(), result.findings.end(),
                   [](const Diagnostic& a, const Diagnostic& b) { return a.severity > b.severity; });
  return result;
}

} // namespace lg::cli
