// `launchguard submit JOB.toml [--dry-run] [--retry N] [--detach] [--force]
// [--retry-infra] [-- SBATCH_ARGS…]`: preflight, render, sbatch, then watch,
// diagnose and retry with the fix until the run ends.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_input.hpp"
#include "cli/launch_support.hpp"
#include "cli/output.hpp"
#include "preflight/judge.hpp"
#include "cli/estimate_output.hpp"
#include "cli/data_paths.hpp"
#include "launch/job_script.hpp"
#include "launch/journal.hpp"
#include "util/error.hpp"
#include "util/secrets.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace lg::cli {

namespace po = boost::program_options;

namespace {

// Attempts: 1 + --retry N; without --retry, the job's [retry] max_attempts
// when the job has a [retry] section, else a single attempt (retrying
// spends GPU-hours, so it is opt-in).
int max_attempts(const ParsedArgs& parsed, const config::JobSpec& spec)
{
  if (parsed.vars.count("retry") != 0) {
    const int retries = parsed.vars["retry"].as<int>();
    if (retries < 0 || retries > 50) {
      UsageError error("--retry must be between 0 and 50, got {}", retries);
      throw error;
    }
    return retries + 1;
  }
  return spec.locations.count("retry") != 0 ? spec.retry.max_attempts : 1;
}

int dry_run(const GlobalOptions& global, const config::JobSpec& spec, const preflight::JudgedJob& judged,
            const std::vector<std::string>& sbatch_args, int attempts)
{
  const std::string script = launch::render_job_script(spec, judged.environment, template_dirs());
  std::vector<std::string> argv = {"sbatch", "--parsable", "--comment=lg-<run id>-a001"};
  argv.insert(argv.end(), sbatch_args.begin(), sbatch_args.end());
  argv.emplace_back("<state dir>/runs/<run id>/attempt-1/job.sbatch");
  // Shown, not run: a credential in the sbatch words (`--export=ALL,HF_TOKEN=…`)
  // is not echoed; what is shown is quoted as a shell would need it.
  std::vector<std::string> quoted;
  for (auto& word : argv) {
    word = secrets::redact_assignments(word);
    quoted.push_back(shell_quote(word));
  }
  if (global.json) {
    nlohmann::json findings = nlohmann::json::array();
    for (const auto& f : judged.findings) {
      findings.push_back(to_json(f));
    }
    print_json({{"dry_run", true}, {"findings", findings}, {"estimate", to_json(judged.estimate)},
                {"script", script}, {"sbatch", argv}, {"max_attempts", attempts}});
    return k_exit_ok;
  }
  print_diagnostics(global, judged.findings);
  fmt::print("{}: {}\n", spec.name, verdict_line(global, judged.estimate));
  fmt::print("\nwould run (no job submitted): {}\nup to {} attempt(s); retry ladder: {}\n\n", join(quoted, " "),
             attempts, join(spec.retry.fixes, " → "));
  std::cout << script;
  return k_exit_ok;
}

} // namespace

int run_submit(const GlobalOptions& global, const std::vector<std::string>& args)
{
  po::options_description options("submit options");
  options.add_options()
    ("dry-run", "show the preflight, the script and the sbatch call; submit nothing")
    ("retry", po::value<int>(), "retry up to N times with the fix the diagnosis calls for")
    ("retry-infra", "also resubmit, unchanged, after node failure or preemption")
    ("detach", "return once the job is submitted ('launchguard watch RUN_ID' follows it)")
    ("force", "submit even when the preflight finds errors");
  add_job_options(options);
  add_launch_options(options);
  const ParsedArgs parsed = parse_args("submit", options, args);
  if (parsed.positional.empty()) {
    UsageError error("submit: missing JOB.toml");
    error.hint = "usage: launchguard submit JOB.toml [--retry N] [-- SBATCH_ARGS…]";
    throw error;
  }
  const config::JobSpec spec = load_job(parsed);
  const preflight::JudgedJob checked = preflight::judge(spec);
  const int attempts = max_attempts(parsed, spec);
  if (checked.has_errors() && parsed.vars.count("force") == 0) {
    if (!global.json) {
      print_diagnostics(global, checked.findings);
    }
    Error error("submit: the preflight found errors; nothing was submitted");
    error.hint = "fix them (see above or 'launchguard check'), or pass --force";
    throw error;
  }
  if (parsed.vars.count("dry-run") != 0) {
    return dry_run(global, spec, checked, parsed.passthrough, attempts);
  }
  if (!global.json) {
    print_diagnostics(global, checked.findings);
    std::fflush(stdout);
    fmt::print(stderr, "launchguard: preflight: {}\n", verdict_line(global, checked.estimate));
  }
  LaunchEnvironment live = make_launch_environment(global, state_dir(parsed));
  launch::RunOptions run_options;
  run_options.max_attempts = attempts;
  run_options.detach = parsed.vars.count("detach") != 0;
  run_options.retry_infra = parsed.vars.count("retry-infra") != 0;
  run_options.sbatch_args = parsed.passthrough;
  apply_watch_options(parsed, run_options);
  for (const auto& stage : checked.estimate.stages) {
    run_options.estimated_allocated_bytes = std::max(run_options.estimated_allocated_bytes, stage.allocated_peak_bytes);
  }
  launch::Journal journal = launch::Journal::create(state_dir(parsed), spec.name);
  launch::begin_run(journal, spec, job_source(parsed), run_options, live.context);
  const launch::RunOutcome outcome = launch::drive_run(journal, run_options, live.context);
  const launch::RunState state = launch::fold(journal.run_id(), journal.records());
  if (global.json) {
    auto document = run_summary_json(state);
    document["detached"] = outcome.detached;
    document["interrupted"] = outcome.interrupted;
    print_json(document);
  } else {
    print_run_summary(global, state);
    if (outcome.detached || outcome.interrupted) {
      fmt::print("follow it with: launchguard watch {}\n", journal.run_id());
    }
  }
  return exit_code_of(outcome);
}

} // namespace lg::cli
