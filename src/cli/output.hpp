// Printing shared by subcommands: diagnostics, colours, JSON documents.
#pragma once

#include "util/diagnostic.hpp"
#include "util/error.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <span>
#include <string>

namespace lg::cli {

struct GlobalOptions;

// Print `error` on `out` (stderr; stdout for a result of a batch) as
// "launchguard: error: <what>" and, when set, "  hint: <hint>", both through
// the terminal sanitiser.
void print_error(const Error& error, std::FILE* out = stderr);

// Print `diagnostics` to stdout as "file:line:col: severity: message [rule]"
// with a "  fix:" line each, coloured when `global.color`.
void print_diagnostics(const GlobalOptions& global, std::span<const Diagnostic> diagnostics);

// Return the JSON object of one finding: rule, severity, message, fix,
// location (when known).
nlohmann::json to_json(const Diagnostic& diagnostic);

// Print `document` on stdout, pretty, followed by a newline.
void print_json(const nlohmann::json& document);

// Wrap `text` in an ANSI colour when `enabled`: "red", "yellow", "green",
// "bold", "dim", "cyan".
std::string colorize(bool enabled, const char* color, const std::string& text);

} // namespace lg::cli
