#include "util/diagnostic.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace lg {

bool has_errors(std::span<const Diagnostic> diagnostics)
{
  return std::any_of(diagnostics.begin(), diagnostics.end(), [](const auto& d) {
    return d.severity == Severity::error;
  });
}

const char* to_string(Severity severity)
{
  switch (severity) {
  case Severity::advice:
    return "advice";
  case Severity::warning:
    return "warning";
  case Severity::error:
    return "error";
  }
  return "error";
}

std::string format(const Diagnostic& diagnostic)
{
  std::string out;
  if (diagnostic.where) {
    const auto& w = *diagnostic.where;
    out += w.file;
    if (w.line > 0) {
      out += fmt::format(":{}", w.line);
      if (w.column > 0) {
        out += fmt::format(":{}", w.column);
      }
    }
    out += ": ";
  }
  out += fmt::format("{}: {}", to_string(diagnostic.severity), diagnostic.message);
  if (!diagnostic.rule.empty()) {
    out += fmt::format(" [{}]", diagnostic.rule);
  }
  if (!diagnostic.fix.empty()) {
    out += fmt::format("\n  fix: {}", diagnostic.fix);
  }
  return out;
}

} // namespace lg
