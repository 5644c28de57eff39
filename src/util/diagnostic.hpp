// Findings about an input: returned as values, never thrown. check, audit,
// env and the config validator all speak this type.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace lg {

enum class Severity { advice, warning, error };

struct SourceLocation
{
  std::string file;
  int line = 0;
  int column = 0;
};

struct Diagnostic
{
  Severity severity = Severity::error;
  std::string rule;                     // "parallelism.world_size"; stable id
  std::string message;                  // what is wrong, with numbers
  std::string fix;                      // what to change, concretely
  std::optional<SourceLocation> where;  // job file or script location
};

// Return true if any diagnostic has Severity::error.
bool has_errors(std::span<const Diagnostic> diagnostics);

// Return "error", "warning" or "advice".
const char* to_string(Severity severity);

// Format one diagnostic as "file:line:col: error: message [rule]\n  fix: …".
std::string format(const Diagnostic& diagnostic);

} // namespace lg
