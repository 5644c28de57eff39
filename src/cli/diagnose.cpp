// `launchguard diagnose LOG… [--job JOB.toml] [--state SLURM_STATE]
// [--catalogue FILE]`: classify a failed job's logs offline, with the fix.
// The catalogue is the shipped signatures/default.toml (from the data dirs,
// else the copy built into the binary), then the user's
// $XDG_CONFIG_HOME/launchguard/signatures/*.toml in name order, then each
// --catalogue FILE; a later signature with the same id replaces an earlier one.
// Exit status: 0 when no failure is found, 1 when one is.
#include "cli/commands.hpp"
#include "cli/catalogue_files.hpp"
#include "cli/data_paths.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_input.hpp"
#include "cli/output.hpp"
#include "diagnose/category.hpp"
#include "diagnose/diagnose.hpp"
#include "env/flight_recorder.hpp"
#include "launch/retry.hpp"
#include "preflight/judge.hpp"
#include "util/bytes.hpp"
#include "util/error.hpp"
#include "util/terminal.hpp"
#include "watch/flight_recorder_dumps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

namespace lg::cli {

namespace {

namespace fs = std::filesystem;
namespace po = boost::program_options;

// The job file's judgement (diagnose --job): whether expandable segments
// were in effect, and what the preflight would have refused.
struct JobFacts
{
  diagnose::Context context;
  std::vector<Diagnostic> errors;  // the job's error findings (allocator_config_error, …)
  std::optional<config::JobSpec> spec;  // the judged job (--job)
  std::string job_file;
  std::string dump_prefix;  // the job's TORCH_NCCL_DEBUG_INFO_TEMP_FILE (--job)
};

JobFacts make_context(const ParsedArgs& parsed)
{
  JobFacts facts;
  diagnose::Context& context = facts.context;
  if (parsed.vars.count("state") != 0) {
    context.slurm_state = parsed.vars["state"].as<std::string>();
    std::transform(context.slurm_state.begin(), context.slurm_state.end(), context.slurm_state.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  }
  if (parsed.vars.count("job") != 0) {
    ParsedArgs job_args = parsed;
    job_args.positional = {parsed.vars["job"].as<std::string>()};
    job_args.passthrough.clear();
    preflight::Options judge_options;
    judge_options.with_what_if = false;
    const preflight::JudgedJob judged = preflight::judge(load_job(job_args), judge_options);
    context.expandable_segments_set = judged.allocator.expandable_in_effect();
    facts.errors = judged.errors();
    facts.spec = judged.spec;
    facts.job_file = job_args.positional.front();
    facts.dump_prefix = env::flight_recorder_dump_prefix(judged.environment);
  }
  return facts;
}

// A memory failure with --job: the fix is the first step of the job's own
// retry ladder (the one `submit --retry` takes), each step judged again by the
// preflight; the catalogue's generic advice stays after it.
void fix_from_job(diagnose::Diagnosis& diagnosis, const JobFacts& facts)
{
  if (!facts.spec || !launch::is_memory_failure(diagnosis.category)) {
    return;
  }
  launch::RetryInput input;
  input.category = diagnosis.category;
  input.suggested_change = diagnosis.suggested_change;
  const launch::RetryDecision decision = launch::decide_retry(*facts.spec, input);
  if (decision.kind == launch::RetryKind::with_fix) {
    diagnosis.fix = fmt::format("For {}, judged by the preflight: {} — the first step of the job's own retry ladder "
                                "(the one submit --retry takes) that is predicted to fit and breaks no rule. Check "
                                "it with `launchguard estimate`.",
                                facts.job_file, decision.reason);
    diagnosis.suggested_change = decision.fix;
  } else {
    diagnosis.fix = fmt::format("For {}, judged by the preflight: {}; no step of its retry ladder is predicted to "
                                "fit. {}",
                                facts.job_file, decision.reason, diagnosis.fix);
    diagnosis.suggested_change.clear();
  }
}

nlohmann::json to_json(const diagnose::Diagnosis& diagnosis)
{
  nlohmann::json evidence = nlohmann::json::array();
  for (const auto& e : diagnosis.evidence) {
    evidence.push_back({{"file", e.file}, {"line", e.line}, {"text", e.text}});
  }
  nlohmann::json document = {{"category", diagnosis.category},
                             {"confidence", diagnosis.confidence},
                             {"evidence", std::move(evidence)},
                             {"fix", diagnosis.fix},
                             {"retryable", diagnosis.retryable}};
  if (!diagnosis.suggested_change.empty()) {
    document["suggested_change"] = diagnosis.suggested_change;
  }
  if (diagnosis.first_failing_rank) {
    document["first_failing_rank"] = *diagnosis.first_failing_rank;
  }
  if (!diagnosis.host.empty()) {
    document["host"] = diagnosis.host;
  }
  if (!diagnosis.reason.empty()) {
    document["reason"] = diagnosis.reason;
  }
  nlohmann::json consequences = nlohmann::json::array();
  for (const auto& event : diagnosis.consequence_events) {
    nlohmann::json entry = {{"category", event.category}, {"file", event.file}, {"line", event.line},
                            {"text", event.text}};
    if (event.rank) {
      entry["rank"] = *event.rank;
    }
    if (!event.host.empty()) {
      entry["host"] = event.host;
    }
    consequences.push_back(std::move(entry));
  }
  if (!diagnosis.flight_recorder_dumps.empty()) {
    document["flight_recorder_dumps"] = diagnosis.flight_recorder_dumps;
  }
  if (!consequences.empty()) {
    document["consequences"] = std::move(consequences);
  }
  return document;
}

void print_oom(const diagnose::OomNumbers& oom)
{
  fmt::print("  oom numbers: requested {}, total {}, free {}, allocated {}, reserved-unallocated {}, "
             "outside the allocator {}\n",
             format_bytes(oom.request_bytes), format_bytes(oom.total_bytes), format_bytes(oom.free_bytes),
             format_bytes(oom.allocated_bytes), format_bytes(oom.reserved_unallocated_bytes),
             format_bytes(oom.outside_bytes()));
}

// "nccl_timeout on ranks 0-16, 18-63": which ranks each consequence hit.
void print_consequence_ranks(const GlobalOptions& global, const diagnose::Diagnosis& d)
{
  std::map<std::string, std::set<int>> ranks;
  for (const auto& event : d.consequence_events) {
    if (event.rank) {
      ranks[event.category].insert(*event.rank);
    }
  }
  for (const auto& [category, set] : ranks) {
    std::vector<std::string> runs;
    for (auto it = set.begin(); it != set.end();) {
      const int first = *it;
      int last = first;
      for (++it; it != set.end() && *it == last + 1; ++it) {
        last = *it;
      }
      runs.push_back(first == last ? std::to_string(first) : fmt::format("{}-{}", first, last));
    }
    fmt::print("  {} {} on rank{} {}\n", colorize(global.color, "dim", "then:"),
               category == "unknown" ? "stopped (exit status, signal)" : category, set.size() == 1 ? "" : "s",
               fmt::join(runs, ", "));
  }
}

void print_text(const GlobalOptions& global, const diagnose::Diagnosis& d)
{
  const bool failed = diagnose::is_failure(d.category);
  fmt::print("{} {} (confidence {:.2f})\n", colorize(global.color, "bold", "category:"),
             colorize(global.color, failed ? "red" : "green", d.category), d.confidence);
  if (!d.reason.empty()) {
    fmt::print("  why: {}\n", printable(d.reason));
  }
  if (d.first_failing_rank || !d.host.empty()) {
    fmt::print("  first failing: {}{}{}\n", d.first_failing_rank ? fmt::format("rank {}", *d.first_failing_rank) : "",
               d.first_failing_rank && !d.host.empty() ? " on " : "", d.host.empty() ? "" : "host " + d.host);
  }
  if (d.oom && global.verbose > 0) {
    print_oom(*d.oom);
  }
  if (!d.evidence.empty()) {
    fmt::print("{}\n", colorize(global.color, "bold", "evidence:"));
    for (const auto& e : d.evidence) {
      fmt::print("  {}: {}\n", colorize(global.color, "cyan", printable(fmt::format("{}:{}", e.file, e.line))), printable(e.text));
    }
  }
  fmt::print("{} {}\n", colorize(global.color, "green", "fix:"), printable(d.fix));
  if (!d.suggested_change.empty()) {
    fmt::print("{} {}\n", colorize(global.color, "bold", "suggested change:"), d.suggested_change);
  }
  if (failed) {
    fmt::print("{} {}\n", colorize(global.color, "bold", "retry:"), d.retryable ? "yes" : "no");
  }
  if (!d.flight_recorder_dumps.empty()) {
    const auto& first = d.flight_recorder_dumps.front();
    fmt::print("{} {}{} — read them with: python -m torch.distributed.flight_recorder.fr_trace {} --prefix {}\n",
               colorize(global.color, "bold", "NCCL flight-recorder dumps:"), printable(first),
               d.flight_recorder_dumps.size() > 1 ? fmt::format(" and {} more", d.flight_recorder_dumps.size() - 1)
                                                  : "",
               printable(std::filesystem::path(first).parent_path().string()),
               printable(watch::flight_recorder_file_prefix(first)));
  }
  if (!d.consequences.empty()) {
    fmt::print("{} {}\n", colorize(global.color, "dim", "also seen (consequences):"),
               fmt::join(d.consequences, ", "));
  }
  print_consequence_ranks(global, d);
}

} // namespace

int run_diagnose(const GlobalOptions& global, const std::vector<std::string>& args)
{
  po::options_description options("diagnose options");
  add_job_options(options);
  options.add_options()
    ("job", po::value<std::string>(),
     "the job file: whether expandable_segments was on, and a memory fix from its own retry ladder")
    ("state", po::value<std::string>(), "Slurm's final job state: FAILED, OUT_OF_MEMORY, TIMEOUT, NODE_FAIL, …")
    ("catalogue", po::value<std::vector<std::string>>()->composing(),
     "extra signature catalogue (TOML), added last; repeatable");
  const ParsedArgs parsed = parse_args("diagnose", options, args, -1);
  if (parsed.positional.empty()) {
    UsageError error("diagnose: give at least one LOG file ('-' reads standard input)");
    error.hint = "e.g. launchguard diagnose logs/job-1234.out --state FAILED";
    throw error;
  }
  const auto extra = parsed.vars.count("catalogue") != 0 ? parsed.vars["catalogue"].as<std::vector<std::string>>()
                                                         : std::vector<std::string>{};
  const diagnose::Matcher matcher(load_catalogue(extra));
  const JobFacts facts = make_context(parsed);
  diagnose::Diagnosis diagnosis =
    diagnose::diagnose_scan(scan_log_files(parsed.positional, matcher), matcher, facts.context);
  fix_from_job(diagnosis, facts);
  if (diagnose::is_failure(diagnosis.category)) {
    std::vector<std::filesystem::path> logs;
    std::copy_if(parsed.positional.begin(), parsed.positional.end(), std::back_inserter(logs),
                 [](const std::string& file) { return file != "-"; });
    auto dumps = watch::flight_recorder_dumps(logs, facts.dump_prefix);
    if (dumps.empty() && parsed.vars.count("job") == 0) {
      // Without the job file: PyTorch's own file names, else those of the
      // prefix launchguard composes (per job) beside the logs.
      dumps = watch::flight_recorder_dumps(logs, env::k_flight_recorder_job_file_prefix);
    }
    for (const auto& dump : dumps) {
      diagnosis.flight_recorder_dumps.push_back(dump.string());
    }
  }
  if (global.json) {
    nlohmann::json document = to_json(diagnosis);
    if (parsed.vars.count("job") != 0) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& finding : facts.errors) {
        list.push_back(cli::to_json(finding));
      }
      document["job_findings"] = list;
    }
    print_json(document);
  } else {
    print_text(global, diagnosis);
    if (!facts.errors.empty()) {
      fmt::print("{}\n", colorize(global.color, "bold", "the job file (--job) also has errors the preflight refuses:"));
      print_diagnostics(global, facts.errors);
    }
  }
  return diagnose::is_failure(diagnosis.category) ? k_exit_job_errors : k_exit_ok;
}

} // namespace lg::cli
