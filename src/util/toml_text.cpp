#include "util/toml_text.hpp"

#include "util/error.hpp"
#include "util/nesting.hpp"

#include <utility>

namespace lg {

toml::table parse_toml_text(std::string_view text, const std::string& display_name, std::string hint)
{
  refuse_deep_toml(text, display_name);
  try {
    return toml::parse(text, std::string_view(display_name));
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    InputError error("{}:{}:{}: invalid TOML: {}", display_name, where.line, where.column, e.description());
    error.hint = std::move(hint);
    throw error;
  }
}

} // namespace lg
