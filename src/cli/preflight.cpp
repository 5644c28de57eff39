#include "cli/preflight.hpp"

#include "estimate/fixes.hpp"
#include "rules/rules.hpp"

namespace lg::cli {

Preflight preflight(const config::JobSpec& spec)
{
  Preflight result;
  estimate::Options options;
  options.expandable_segments = estimate::expandable_segments_enabled(spec);
  result.estimate = estimate::estimate(spec, options);
  result.findings = rules::check(spec, result.estimate);
  return result;
}

} // namespace lg::cli
