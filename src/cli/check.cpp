// `launchguard check`: preflight. Rules + environment findings + the memory
// verdict; exit 1 when any finding is an error. Many job files, or --jsonl,
// run as a batch (cli/job_batch.hpp).
#include "cli/commands.hpp"
#include "cli/estimate_output.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_batch.hpp"
#include "cli/job_input.hpp"
#include "cli/output.hpp"
#include "preflight/judge.hpp"

#include <fmt/core.h>

namespace lg::cli {

// Judge `spec`; print the text result, or fill `*document` (--json).
static int check_one_job(const GlobalOptions& global, const config::JobSpec& spec, nlohmann::json* document)
{
  const preflight::JudgedJob result = preflight::judge(spec);
  const bool ok = !result.has_errors();
  if (document != nullptr) {
    nlohmann::json findings = nlohmann::json::array();
    for (const auto& finding : result.findings) {
      findings.push_back(to_json(finding));
    }
    *document = {{"ok", ok}, {"findings", findings}, {"estimate", to_json(result.estimate)}};
    return ok ? k_exit_ok : k_exit_job_errors;
  }
  print_diagnostics(global, result.findings);
  if (!result.findings.empty()) {
    fmt::print("\n");
  }
  fmt::print("{}: {}\n", spec.name, verdict_line(global, result.estimate));
  std::size_t errors = 0;
  std::size_t warnings = 0;
  for (const auto& finding : result.findings) {
    errors += finding.severity == Severity::error ? 1 : 0;
    warnings += finding.severity == Severity::warning ? 1 : 0;
  }
  fmt::print("{}: {} error(s), {} warning(s), {} advice\n",
             ok ? colorize(global.color, "green", "ok") : colorize(global.color, "red", "failed"), errors,
             warnings, result.findings.size() - errors - warnings);
  return ok ? k_exit_ok : k_exit_job_errors;
}

int run_check(const GlobalOptions& global, const std::vector<std::string>& args)
{
  boost::program_options::options_description options("check options");
  add_job_options(options);
  add_batch_options(options);
  const ParsedArgs parsed = parse_args("check", options, args, -1);
  const auto judge_one = [&](const config::JobSpec& spec, nlohmann::json* document) {
    return check_one_job(global, spec, document);
  };
  return run_jobs(global, parsed, judge_one);
}

} // namespace lg::cli
