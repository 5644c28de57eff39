// A lexical guard run before toml++ parses a file: toml++ builds and frees
// nested tables recursively, so `[a.a.a…]` with 50,000 levels overflows the
// stack (a 64 KB input under ASan). This walk is iterative and linear.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace lg {

inline constexpr std::size_t k_max_toml_depth = 64;

struct TextPosition
{
  std::size_t line = 1;  // 1-based
  std::size_t column = 1;
};

// Return where `text` first nests tables, dotted keys, arrays or inline
// tables deeper than `max_depth` levels, or nullopt. Counts generously (a
// header `[a.b]` is 2 levels, `x.y = [ { z = 1 } ]` under it is 6), never
// less than toml++ would build; strings and comments are skipped.
std::optional<TextPosition> toml_too_deep(std::string_view text, std::size_t max_depth = k_max_toml_depth);

} // namespace lg

namespace lg {

// Throw InputError "<name>:<line>:<col>: nested more than 64 levels" when
// toml_too_deep finds a place; call before toml::parse.
void refuse_deep_toml(std::string_view text, std::string_view display_name);

} // namespace lg
