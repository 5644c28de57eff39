// `launchguard watch RUN_ID|JOB_ID`: follow a run from its journal (resuming
// exactly where it stopped: submit if the attempt was never acknowledged,
// retry if the last attempt failed) or a plain Slurm job until it ends.
#include "cli/catalogue_files.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_input.hpp"
#include "cli/launch_support.hpp"
#include "cli/output.hpp"
#include "diagnose/category.hpp"
#include "diagnose/diagnose.hpp"
#include "launch/journal.hpp"
#include "slurm/job_status.hpp"
#include "util/error.hpp"
#include "watch/hang_monitor.hpp"
#include "watch/log_tail.hpp"
#include "watch/observed_state.hpp"
#include "watch/session.hpp"

#include "util/terminal.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

namespace lg::cli {

namespace po = boost::program_options;

namespace {

// "181", "0181", "180_3", "181+1": digits, then at most one array-task or
// heterogeneous-component suffix.
bool is_job_id(const std::string& text)
{
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  const std::size_t end = std::min(text.find_first_of("_+"), text.size());
  if (end == 0 || !std::all_of(text.begin(), text.begin() + static_cast<long>(end), digit)) {
    return false;
  }
  return end == text.size()
         || (end + 1 < text.size() && std::all_of(text.begin() + static_cast<long>(end) + 1, text.end(), digit));
}

// --hang-cancel, refused beside --no-hang-cancel.
bool hang_cancel_flag(const ParsedArgs& parsed)
{
  const bool cancel = parsed.vars.count("hang-cancel") != 0;
  if (cancel && parsed.vars.count("no-hang-cancel") != 0) {
    UsageError error("watch: --hang-cancel and --no-hang-cancel contradict each other");
    error.hint = "give one of them";
    throw error;
  }
  return cancel;
}

int watch_run(const GlobalOptions& global, const ParsedArgs& parsed, const std::string& run_id)
{
  launch::Journal journal = launch::Journal::open(state_dir(parsed), run_id);
  LaunchEnvironment live = make_launch_environment(global, state_dir(parsed));
  launch::RunOptions options;
  for (const auto& record : journal.records()) {
    if (record.type == "run_created") {
      options.max_attempts = record.data.value("max_attempts", 1);
      options.retry_infra = record.data.value("retry_infra", false);
      options.sbatch_args = record.data.value("sbatch_args", std::vector<std::string>{});
      live.context.submit_dir = record.data.value("submit_dir", live.context.submit_dir.string());
      launch::read_hang_options(record.data, options);
    }
  }
  apply_watch_options(parsed, options);  // the command line's flags win
  if (hang_cancel_flag(parsed)) {
    options.hang_cancel = true;
  }
  const launch::RunOutcome outcome = launch::drive_run(journal, options, live.context);
  int damaged = 0;
  launch::RunState state = launch::fold(journal.run_id(), journal.records(&damaged));
  state.damaged_records = damaged;
  if (global.json) {
    print_json(run_summary_json(state));
  } else {
    print_run_summary(global, state);
  }
  return exit_code_of(outcome);
}

// Hangs of a plain job (one JOB_ID with --log files): the monitor a run's
// watch uses, fed by a tail of the --log files between Slurm checks (reading
// them asks Slurm nothing). Reported; cancelled only with --hang-cancel,
// since launchguard did not submit the job (docs/failure-categories.md).
struct PlainJobHangs
{
  PlainJobHangs(const watch::Clock& clock, const watch::HangPolicy& policy, std::vector<std::string> log_files)
    : monitor(clock, policy),
      files(std::move(log_files))
  {}

  watch::LogTail tail;
  watch::HangMonitor monitor;
  std::vector<std::string> files;  // '-' (standard input) is not followed
};

// The hang options of plain `watch JOB_ID`: a run's defaults and flags,
// except that cancelling needs --hang-cancel.
watch::HangPolicy plain_job_hang_policy(const ParsedArgs& parsed, launch::RunOptions& options)
{
  apply_watch_options(parsed, options);
  return watch::HangPolicy{options.hang, options.hang_grace, hang_cancel_flag(parsed)};
}

void follow_plain_job(PlainJobHangs& hangs, const slurm::JobId& id, const watch::ObservedState& job,
                      launch::RunContext& context)
{
  for (const auto& file : hangs.files) {
    if (file != "-") {
      for (const auto& line : hangs.tail.poll(file)) {
        hangs.monitor.observe(line);
      }
    }
  }
  const watch::HangLook look = hangs.monitor.look(job);
  if (look.resumed) {
    context.progress(fmt::format("job {}: iterations advance again; not a hang", id));
  }
  const double grace = std::chrono::duration<double>(hangs.monitor.policy().grace).count();
  if (look.reported) {
    context.progress(
      fmt::format("job {}: {}", id,
                  watch::describe_hang(
                    *look.stall, hangs.monitor.policy().cancel
                                   ? fmt::format("cancelling in {:.0f} s unless it advances (--hang-cancel)", grace)
                                   : std::string("not cancelling a job launchguard did not submit "
                                                 "(--hang-cancel to cancel it)"))));
  }
  if (look.cancel_now) {
    context.progress(fmt::format("job {}: cancelling: {} and no progress through the {:.0f} s grace", id,
                                 diagnose::to_string(diagnose::Category::hang_no_progress), grace));
    context.client->cancel(id);
  }
}

// Slurm jobs launchguard did not submit, any number at once (one batched
// query per cycle for all of them): their states until all have ended, then a
// diagnosis of --log files if given. With one JOB_ID the --log files are its
// own, followed for hangs while it runs.
int watch_jobs(const GlobalOptions& global, const ParsedArgs& parsed, const std::vector<std::string>& ids)
{
  const auto files = parsed.vars.count("log") != 0 ? parsed.vars["log"].as<std::vector<std::string>>()
                                                   : std::vector<std::string>{};
  launch::RunOptions run_options;
  const watch::HangPolicy hang_policy = plain_job_hang_policy(parsed, run_options);
  LaunchEnvironment live = make_launch_environment(global, state_dir(parsed));
  std::optional<PlainJobHangs> hangs;
  if (ids.size() == 1 && !files.empty()) {
    hangs.emplace(watch::Clock::real(), hang_policy, files);
  } else if (!files.empty()) {
    live.context.progress("hangs are followed for one JOB_ID at a time (the --log files of several jobs cannot be "
                          "told apart); the logs are diagnosed when all have ended");
  }
  const watch::SessionOptions session_options{run_options.schedule, run_options.vanish_after,
                                              hangs ? run_options.follow_every : std::chrono::milliseconds(0)};
  watch::Session session(live.context.query, watch::Clock::real(), session_options);
  std::map<std::string, watch::ObservedState> last;
  for (const auto& id : ids) {
    session.add(id);
    last[id] = watch::ObservedState{};
  }
  session.run(
    [&](const watch::Cycle& cycle) {
      if (cycle.outage_changed) {
        live.context.progress(cycle.outage
                                ? fmt::format("Slurm is not answering ({}); still watching", cycle.outage_message)
                                : std::string("Slurm answers again"));
      }
      for (const auto& update : cycle.updates) {
        const watch::ObservedState seen = update.vanished
                                            ? watch::ObservedState::vanished()
                                            : watch::observed_state(update.status);
        if (update.vanished) {
          live.context.progress(fmt::format("job {} is unknown to Slurm (neither squeue nor sacct) for {:.0f} s: "
                                            "it vanished (wrong id, or ended long ago)",
                                            update.id, std::chrono::duration<double>(update.missing_for).count()));
        } else if (seen != last[update.id]) {
          live.context.progress(fmt::format("job {} {}", update.id, watch::to_string(seen)));
        }
        last[update.id] = seen;
      }
      if (hangs) {
        follow_plain_job(*hangs, ids.front(), last[ids.front()], live.context);
      }
      return true;
    },
    live.context.interrupted);
  if (live.context.interrupted()) {
    return k_exit_interrupted;
  }
  nlohmann::json jobs = nlohmann::json::array();
  bool all_completed = true;
  for (const auto& id : ids) {
    const watch::ObservedState& job = last[id];
    jobs.push_back({{"job_id", id}, {"state", watch::to_string(job)}});
    all_completed = all_completed && job.is(slurm::JobState::completed);
    if (!global.json) {
      fmt::print("job {}: {}\n", printable(id), printable(watch::to_string(job)));
    }
  }
  nlohmann::json document = ids.size() == 1 ? jobs.front() : nlohmann::json{{"jobs", jobs}};
  if (!files.empty()) {
    const std::string state = ids.size() == 1 ? watch::to_string(last[ids.front()]) : std::string();
    auto diagnosis =
      diagnose::diagnose_scan(scan_log_files(files, *live.matcher), *live.matcher, {state, std::nullopt});
    if (hangs && hangs->monitor.hang()) {
      watch::apply_hang(diagnosis, *hangs->monitor.hang(), live.matcher->catalogue());
    }
    document["category"] = diagnosis.category;
    document["fix"] = diagnosis.fix;
    if (!global.json) {
      fmt::print("diagnosis: {}\nfix: {}\n", printable(diagnosis.category), printable(diagnosis.fix));
    }
  }
  if (global.json) {
    print_json(document);
  }
  return all_completed ? k_exit_ok : k_exit_job_errors;
}

} // namespace

int run_watch(const GlobalOptions& global, const std::vector<std::string>& args)
{
  po::options_description options("watch options");
  options.add_options()("log", po::value<std::vector<std::string>>()->composing(),
                        "log file of a plain Slurm job: followed for hangs while it runs (one JOB_ID), "
                        "diagnosed when it ends")(
    "hang-cancel", "cancel a plain JOB_ID (one launchguard did not submit) after a hang's grace; runs are "
                   "cancelled without it");
  add_launch_options(options);
  const ParsedArgs parsed = parse_args("watch", options, args, -1);
  if (parsed.positional.empty()) {
    UsageError error("watch: missing RUN_ID or JOB_ID");
    error.hint = "see 'launchguard runs' for run ids";
    throw error;
  }
  const auto runs = launch::list_runs(state_dir(parsed));
  const std::string target = parsed.positional.front();
  if (std::find(runs.begin(), runs.end(), target) != runs.end() || !is_job_id(target)) {
    if (parsed.positional.size() > 1) {
      UsageError error("watch: one RUN_ID at a time (several JOB_IDs are fine)");
      error.hint = "a run drives its own retries; watch each run in its own terminal";
      throw error;
    }
    return watch_run(global, parsed, target);
  }
  for (const auto& id : parsed.positional) {
    if (!is_job_id(id)) {
      UsageError error("watch: '{}' is not a Slurm job id", id);
      throw error;
    }
  }
  return watch_jobs(global, parsed, parsed.positional);
}

} // namespace lg::cli
