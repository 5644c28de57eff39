#include "cli/output.hpp"

#include "cli/commands.hpp"
#include "util/terminal.hpp"

#include <fmt/core.h>

#include <cstring>

namespace lg::cli {

std::string colorize(bool enabled, const char* color, const std::string& text)
{
  if (!enabled) {
    return text;
  }
  const char* code = "0";
  if (std::strcmp(color, "red") == 0) {
    code = "1;31";
  } else if (std::strcmp(color, "yellow") == 0) {
    code = "1;33";
  } else if (std::strcmp(color, "green") == 0) {
    code = "1;32";
  } else if (std::strcmp(color, "bold") == 0) {
    code = "1";
  } else if (std::strcmp(color, "dim") == 0) {
    code = "2";
  } else if (std::strcmp(color, "cyan") == 0) {
    code = "36";
  }
  return fmt::format("\033[{}m{}\033[0m", code, text);
}

void print_error(const Error& error, std::FILE* out)
{
  fmt::print(out, "launchguard: error: {}\n", printable(error.what()));
  if (!error.hint.empty()) {
    fmt::print(out, "  hint: {}\n", printable(error.hint));
  }
}

static const char* severity_color(Severity severity)
{
  switch (severity) {
  case Severity::error:
    return "red";
  case Severity::warning:
    return "yellow";
  case Severity::advice:
    return "cyan";
  }
  return "bold";
}

void print_diagnostics(const GlobalOptions& global, std::span<const Diagnostic> diagnostics)
{
  for (const auto& d : diagnostics) {
    std::string where;
    if (d.where) {
      where = d.where->file;
      if (d.where->line > 0) {
        where += fmt::format(":{}", d.where->line);
        if (d.where->column > 0) {
          where += fmt::format(":{}", d.where->column);
        }
      }
      where = printable(where) + ": ";
    }
    fmt::print("{}{}: {}{}\n", colorize(global.color, "bold", where),
               colorize(global.color, severity_color(d.severity), to_string(d.severity)), printable(d.message),
               d.rule.empty() ? "" : colorize(global.color, "dim", fmt::format(" [{}]", d.rule)));
    if (!d.fix.empty()) {
      fmt::print("  {} {}\n", colorize(global.color, "green", "fix:"), printable(d.fix));
    }
  }
}

nlohmann::json to_json(const Diagnostic& diagnostic)
{
  nlohmann::json out = {
    {"rule", diagnostic.rule},
    {"severity", to_string(diagnostic.severity)},
    {"message", diagnostic.message},
    {"fix", diagnostic.fix},
  };
  if (diagnostic.where) {
    out["location"] = {{"file", diagnostic.where->file},
                       {"line", diagnostic.where->line},
                       {"column", diagnostic.where->column}};
  }
  return out;
}

void print_json(const nlohmann::json& document)
{
  fmt::print("{}\n", document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

} // namespace lg::cli
