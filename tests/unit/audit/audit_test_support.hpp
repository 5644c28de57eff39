// Shared helpers for the audit tests: audit a script text with the H100
// preset and look findings up by rule.
#pragma once

#include "audit/audit.hpp"
#include "audit/fix.hpp"
#include "support/builders.hpp"

#include <string>
#include <vector>

namespace lg::audit::testing {

inline AuditOptions h100_options()
{
  AuditOptions options;
  options.gpu = lg::testing::gpu("h100-80gb");
  return options;
}

inline AuditResult run(const std::string& text, AuditOptions options = h100_options())
{
  return audit_text(text, "job.sbatch", options);
}

// Pointers into `result`: keep a named result while they are used (a temporary
// result dies at the end of the full expression; use that only for .size()).
inline std::vector<const AuditFinding*> with_rule(const AuditResult& result, const std::string& rule)
{
  std::vector<const AuditFinding*> out;
  for (const auto& f : result.findings) {
    if (f.diagnostic.rule == rule) {
      out.push_back(&f);
    }
  }
  return out;
}

inline int line_of(const AuditFinding* finding)
{
  return finding != nullptr && finding->diagnostic.where ? finding->diagnostic.where->line : -1;
}

inline std::string fix(const std::string& text, AuditOptions options = h100_options())
{
  return apply_fixes(text, run(text, options).findings);
}

// A dump of the findings, for failure messages.
inline std::string describe(const AuditResult& result)
{
  std::string out;
  for (const auto& f : result.findings) {
    out += std::to_string(line_of(&f)) + " " + f.diagnostic.rule + ": " + f.diagnostic.message + "\n";
  }
  return out;
}

} // namespace lg::audit::testing
