// Internal to src/audit: deciding an `if` condition from known values
// (shell_condition.cpp says which forms).
#pragma once

#include "audit/script_model.hpp"

#include <optional>
#include <vector>

namespace lg::audit::detail {

// The condition's truth when the words (after `if`/`elif`, expanded) decide
// it; nullopt when they do not.
std::optional<bool> static_condition(const std::vector<Word>& words);

} // namespace lg::audit::detail
