// The template context of a job as plain data (render.cpp converts it to
// Mustache's types): every value already quoted for where it goes.
#pragma once

#include "config/job_spec.hpp"
#include "env/environment.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace lg::render {

struct Value;
using Object = std::map<std::string, Value>;

// A string, a boolean (for {{#section}}s) or a list of objects.
struct Value
{
  enum class Kind { text, flag, list };
  Kind kind = Kind::text;
  std::string text;
  bool flag = false;
  std::vector<Object> items;

  Value(std::string value)  // NOLINT(google-explicit-constructor): a context reads as a table
    : text(std::move(value))
  {
  }
  Value(const char* value)  // NOLINT(google-explicit-constructor)
    : text(value)
  {
  }
  Value(bool value)  // NOLINT(google-explicit-constructor)
    : kind(Kind::flag),
      flag(value)
  {
  }
  Value(std::vector<Object> value)  // NOLINT(google-explicit-constructor)
    : kind(Kind::list),
      items(std::move(value))
  {
  }
};

// Build the template context for `spec` with `environment` (docs/templates.md).
Object build_context(const config::JobSpec& spec, const env::Environment& environment);

// Quote `word` (script_quote) for a position where it may be the first word of a
// command: like script_quote, but also quotes words with '=' or a leading '%'
// (an assignment or a job-control word there).
std::string quote_command_word(std::string_view word);

} // namespace lg::render
