// Small string helpers with no project knowledge.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lg {

// Split `text` at every `separator`; empty fields are kept.
std::vector<std::string> split(std::string_view text, char separator);

// Return `text` without leading and trailing ASCII whitespace.
std::string_view trim(std::string_view text);

// Join `parts` with `separator`.
std::string join(const std::vector<std::string>& parts, std::string_view separator);

// Quote `word` for a POSIX shell so that it is one inert word: single quotes,
// with embedded single quotes written as '\''. Words made only of safe
// characters are returned unchanged.
std::string shell_quote(std::string_view word);

} // namespace lg
