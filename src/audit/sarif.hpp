// SARIF 2.1.0 for code scanning: one run, the audit rules and the check/env
// rules that fired, one result per finding with its region.
#pragma once

#include "audit/audit.hpp"

#include <string>
#include <vector>

namespace lg::audit {

// The SARIF log of `results` as JSON text; `version` is the tool version.
std::string to_sarif(const std::vector<AuditResult>& results, const std::string& version);

} // namespace lg::audit
