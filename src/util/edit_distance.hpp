// "Did you mean" support: Levenshtein distance and nearest-name lookup.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace lg {

// Return the number of single-character edits that turn `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b);

// Return the candidate closest to `name`, if it is close enough to be a
// plausible typo (at most a third of the name's length, at least 1 edit away
// allowed up to 2; a candidate that starts with `name` also counts).
std::optional<std::string> nearest(std::string_view name,
                                   std::span<const std::string> candidates);

} // namespace lg
