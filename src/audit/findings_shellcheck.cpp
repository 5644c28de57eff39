// `audit --shellcheck`: a curated set of shellcheck's codes merged into the
// findings. The caller runs `shellcheck -f json1 -` (only util/process
// spawns processes) and hands over its output; this file reads it. The
// json1 shape, {"comments": [{"line", "column", "level", "code", "message"}]},
// is shellcheck's --format=json1 (ShellCheck src/ShellCheck/Formatter/JSON1.hs).
//
// Kept: what makes a batch job fail or run something else than written —
// parse errors, assignments bash runs as commands, broken line continuations
// (a Megatron argument list cut in two), array misuse (host lists and
// argument arrays), `cd` that may fail, `exec` that ends the script. Left
// out: quoting style (SC2086 and the like), which is noise on launch scripts,
// and what audit's own rules say better (SC1017, CRLF: audit.crlf). SC2178
// (an array reassigned as a string) is left out too: on public launch
// scripts it was the deliberate `ARGS="${ARGS[@]} --more"`, which works.
#include "audit/findings.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>

namespace lg::audit::detail {

namespace {

struct ShellcheckCode
{
  int code;
  const char* why;  // what it does to a job
};

// Codes kept whatever their level, with what they do to a batch job.
constexpr std::array<ShellcheckCode, 11> k_shellcheck_codes = {{
  {1007, "the variable is set to the empty string and the rest runs as a command"},
  {1068, "bash runs the assignment as a command named after the variable"},
  {2283, "bash runs the assignment as a command named after the variable"},
  {2276, "bash runs the word as a command name, not an assignment"},
  {1101, "the `\\` escapes the space, not the line end: the command ends here and the next line runs alone"},
  {2215, "the line runs as its own command: a `\\` is missing at the end of the line above, so the launch "
         "lost the arguments below it"},
  {2068, "array elements are split again on spaces"},
  {2128, "only the first element is used (a host list or an argument array cut to one)"},
  {2145, "the array is joined into one argument with the string"},
  {2164, "if cd fails the job runs in the submit directory and writes its outputs there"},
  {2093, "exec replaces the shell: the lines after it never run"},
}};

const ShellcheckCode* kept_code(int code)
{
  const auto it = std::find_if(k_shellcheck_codes.begin(), k_shellcheck_codes.end(),
                               [&](const ShellcheckCode& c) { return c.code == code; });
  return it == k_shellcheck_codes.end() ? nullptr : &*it;
}

} // namespace

void shellcheck_findings(FindingContext& context, const ShellcheckRun& run)
{
  if (!run.json1) {
    context.add(Severity::warning, "audit.shellcheck", fmt::format("shellcheck did not run: {}", run.failure),
                "install shellcheck (Debian package shellcheck), or audit without --shellcheck", -1);
    return;
  }
  const auto document = nlohmann::json::parse(*run.json1, nullptr, false);
  if (document.is_discarded() || !document.is_object() || !document.contains("comments") ||
      !document["comments"].is_array()) {
    context.add(Severity::warning, "audit.shellcheck", "shellcheck's output could not be read; its checks are missing",
                "run `shellcheck -f json1 SCRIPT` to see what it says", -1);
    return;
  }
  // bash -n is the authority on parse errors (audit.parse_error): shellcheck's
  // own parse errors are added only when bash parsed the script.
  const bool bash_parse_error =
    std::any_of(context.out.begin(), context.out.end(),
                [](const AuditFinding& f) { return f.diagnostic.rule == "audit.parse_error"; });
  for (const auto& comment : document["comments"]) {
    if (!comment.is_object() || !comment.value("code", nlohmann::json()).is_number_integer() ||
        !comment.value("line", nlohmann::json()).is_number_integer()) {
      continue;
    }
    const int code = comment["code"].get<int>();
    const std::string level = comment.value("level", nlohmann::json()).is_string() ? comment["level"].get<std::string>() : "";
    const ShellcheckCode* kept = kept_code(code);
    const bool parse_error = code >= 1000 && code < 2000 && level == "error" && code != 1017;
    if (kept == nullptr && !(parse_error && !bash_parse_error)) {
      continue;
    }
    const int line = comment["line"].get<int>();
    const int column = comment.value("column", nlohmann::json()).is_number_integer() ? comment["column"].get<int>() : 1;
    const int lines = static_cast<int>(context.model.line_starts.size());
    if (line < 1 || line > lines) {
      continue;
    }
    // shellcheck counts a tab as 8 columns: keep the offset inside the line.
    const int begin = context.model.line_begin(line);
    const int end = context.model.line_begin(line + 1);
    const int offset = std::clamp(begin + column - 1, begin, std::max(begin, end - 1));
    const std::string message =
      comment.value("message", nlohmann::json()).is_string() ? comment["message"].get<std::string>() : "";
    // Kept codes break the job: error where shellcheck says error. A parse
    // error bash does not share is a warning: bash is what runs the script.
    const Severity severity = kept != nullptr && level == "error" ? Severity::error : Severity::warning;
    context.add(severity, "audit.shellcheck",
                kept != nullptr ? fmt::format("SC{}: {}: {}", code, message, kept->why)
                                : fmt::format("SC{}: {} (shellcheck cannot parse this; bash can)", code, message),
                fmt::format("see https://www.shellcheck.net/wiki/SC{}", code), offset);
  }
}

} // namespace lg::audit::detail
