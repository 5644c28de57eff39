// `audit --fix`: apply the mechanical edits of the findings (move or insert
// exports above the launch line, correct variable values), touching nothing
// else; and `--fix=diff`: the same change as a unified diff. Applying the
// fixes to an already fixed script changes nothing (the findings are gone).
#pragma once

#include "audit/audit.hpp"

#include <string>
#include <vector>

namespace lg::audit {

// `text` with the findings' edits applied. Edits are applied in offset order;
// one overlapping an earlier edit is skipped, identical edits once.
std::string apply_fixes(const std::string& text, const std::vector<AuditFinding>& findings);

// The unified diff (3 lines of context) from `before` to `after`, with
// a/`path` and b/`path` headers; empty when they are equal.
std::string unified_diff(const std::string& before, const std::string& after, const std::string& path);

} // namespace lg::audit
