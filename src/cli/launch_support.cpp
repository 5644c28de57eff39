#include "cli/launch_support.hpp"

#include "util/terminal.hpp"

#include "cli/catalogue_files.hpp"
#include "cli/commands.hpp"
#include "cli/data_paths.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "config/loader.hpp"
#include "diagnose/category.hpp"
#include "launch/job_source.hpp"
#include "launch/journal.hpp"
#include "util/bytes.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <atomic>
#include <csignal>

namespace lg::cli {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_signal(int)
{
  g_interrupted.store(true);
}

void install_signal_handlers()
{
  struct sigaction action{};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

} // namespace

LaunchEnvironment make_launch_environment(const GlobalOptions& global, const fs::path& state_dir)
{
  LaunchEnvironment live;
  live.client = slurm::make_cli_client();
  live.matcher = std::make_unique<diagnose::Matcher>(load_catalogue({}));
  install_signal_handlers();
  auto& context = live.context;
  context.client = live.client.get();
  live.poll_cache = std::make_unique<watch::PollCache>(state_dir / "poll", *live.client, watch::Clock::real());
  watch::PollCache* cache = live.poll_cache.get();
  context.query = [cache](std::span<const slurm::JobId> ids, std::chrono::milliseconds max_age) {
    return cache->query(ids, max_age);
  };
  context.matcher = live.matcher.get();
  context.template_dirs = template_dirs();
  context.interrupted = [] { return g_interrupted.load(); };
  const bool tty = isatty(STDERR_FILENO) != 0;
  // Progress and status lines quote job and log text (evidence, reasons):
  // shown through the one terminal sanitiser, never raw.
  context.progress = [tty](const std::string& line) {
    fmt::print(stderr, "{}launchguard: {}\n", tty ? "\r\033[K" : "", printable(line));
  };
  if (tty && !global.json) {
    context.status = [](const std::string& line) { fmt::print(stderr, "\r\033[K{}", printable(line)); };
  }
  context.submit_dir = fs::current_path();
  return live;
}

void add_launch_options(po::options_description& options)
{
  options.add_options()
    ("state-dir", po::value<std::string>(), "run journal directory (default $XDG_STATE_HOME/launchguard)")
    ("poll-interval", po::value<double>(),
     "seconds between Slurm checks after a change (default 5; 1 to 3600: the floor protects slurmctld)")
    ("poll-max", po::value<double>(), "longest wait between Slurm checks while nothing changes (default 120; up to 3600)")
    ("vanish-after", po::value<double>(),
     "seconds a job may be unknown to Slurm before it counts as vanished (default 600; 1 to 604800)")
    ("hang-floor", po::value<double>(),
     "seconds without a new iteration line, at least, before a RUNNING job counts as hung; the threshold is "
     "max(3 x the median gap between iteration lines, this) (default 300; 1 to 86400)")
    ("hang-grace", po::value<double>(),
     "seconds a reported hang may last before the job is cancelled (default 360; 0 to 86400)")
    ("no-hang-cancel", "report hangs but never cancel the job for one");
}

std::chrono::milliseconds seconds_option(const ParsedArgs& parsed, const std::string& name, double low, double high,
                                         std::chrono::milliseconds fallback)
{
  if (parsed.vars.count(name) == 0) {
    return fallback;
  }
  const double seconds = parsed.vars[name].as<double>();
  // NaN fails both comparisons, so test for the range, not against it.
  if (!(seconds >= low && seconds <= high)) {
    UsageError error("--{} must be between {:g} and {:g} seconds, got {}", name, low, high, seconds);
    error.hint = name.rfind("poll", 0) == 0
                   ? fmt::format("launchguard asks Slurm at most once every {:g} s per process, and the "
                                 "processes of one user share their answers, to spare slurmctld",
                                 k_min_poll_seconds)
                   : std::string("give a plain number of seconds");
    throw error;
  }
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

watch::PollSchedule poll_schedule(const ParsedArgs& parsed)
{
  watch::PollSchedule schedule;
  schedule.min = seconds_option(parsed, "poll-interval", k_min_poll_seconds, k_max_poll_seconds, schedule.min);
  schedule.first = std::min(schedule.first, schedule.min);
  const double floor_seconds = static_cast<double>(schedule.min.count()) / 1000.0;
  schedule.max = seconds_option(parsed, "poll-max", floor_seconds, k_max_poll_seconds,
                                std::max(schedule.min, schedule.max));
  return schedule;
}

std::chrono::milliseconds vanish_after(const ParsedArgs& parsed)
{
  return seconds_option(parsed, "vanish-after", 1, 7 * 86400, std::chrono::minutes(10));
}

void apply_watch_options(const ParsedArgs& parsed, launch::RunOptions& options)
{
  options.schedule = poll_schedule(parsed);
  options.vanish_after = vanish_after(parsed);
  // Reading logs costs Slurm nothing; a short poll interval asks for a
  // closer look at them too.
  options.follow_every = std::min(options.follow_every, options.schedule.min);
  options.hang.floor = seconds_option(parsed, "hang-floor", 1, 86400, options.hang.floor);
  options.hang_grace = seconds_option(parsed, "hang-grace", 0, 86400, options.hang_grace);
  if (parsed.vars.count("no-hang-cancel") != 0) {
    options.hang_cancel = false;
  }
}

fs::path state_dir(const ParsedArgs& parsed)
{
  if (parsed.vars.count("state-dir") != 0) {
    return parsed.vars["state-dir"].as<std::string>();
  }
  return launch::default_state_dir();
}

nlohmann::json job_source(const ParsedArgs& parsed)
{
  const std::string path = parsed.positional.front();
  launch::ClusterOverrides overrides;
  if (parsed.vars.count("gpu") != 0) {
    overrides.gpu = parsed.vars["gpu"].as<std::string>();
  }
  if (parsed.vars.count("nodes") != 0) {
    overrides.nodes = parsed.vars["nodes"].as<int>();
  }
  if (parsed.vars.count("gpus-per-node") != 0) {
    overrides.gpus_per_node = parsed.vars["gpus-per-node"].as<int>();
  }
  return launch::job_source(path, read_text(path, "job file"), load_options(parsed).preset_dirs, overrides);
}

nlohmann::json run_summary_json(const launch::RunState& state)
{
  nlohmann::json attempts = nlohmann::json::array();
  for (const auto& a : state.attempts) {
    attempts.push_back({{"attempt", a.number},
                        {"tag", a.tag},
                        {"fix", a.fix},
                        {"reason", a.reason},
                        {"job_id", a.job_id.value_or("")},
                        {"state", watch::to_string(a.last_state)},
                        {"category", a.category},
                        {"outcome", launch::to_string(a.outcome)},
                        {"host", a.host},
                        {"exclude", a.exclude},
                        {"max_allocated_bytes", static_cast<std::int64_t>(a.max_allocated_bytes)}});
  }
  return {{"run_id", state.run_id},
          {"name", state.name},
          {"finished", state.finished},
          {"outcome", launch::to_string(state.outcome)},
          {"reason", state.outcome_reason},
          {"max_attempts", state.max_attempts},
          {"attempts", attempts}};
}

void print_run_summary(const GlobalOptions& global, const launch::RunState& state)
{
  // Every value comes from the journal (job name, Slurm's words, log
  // evidence in the reasons): through the terminal sanitiser.
  fmt::print("run {} ({}): {}{}\n", printable(state.run_id), printable(state.name),
             state.finished ? colorize(global.color, state.outcome == launch::RunResult::succeeded ? "green" : "red", printable(launch::to_string(state.outcome)))
                            : "in progress",
             state.outcome_reason.empty() ? "" : " — " + printable(state.outcome_reason));
  for (const auto& a : state.attempts) {
    fmt::print("  attempt {}: job {} {}{}{}{}{}\n", a.number, printable(a.job_id.value_or("-")),
               a.last_state.kind == watch::ObservedState::Kind::none ? "(not submitted)" : printable(watch::to_string(a.last_state)),
               !diagnose::is_failure(a.category) ? "" : ", diagnosis " + printable(a.category),
               a.host.empty() || !diagnose::is_failure(a.category) ? "" : " on " + printable(a.host),
               a.fix.empty() ? "" : ", fix " + printable(a.fix),
               a.exclude.empty() ? "" : printable(fmt::format(", excluding {}", fmt::join(a.exclude, ","))));
    if (!a.reason.empty() && a.number > 1) {
      fmt::print("    why: {}\n", printable(a.reason));
    }
    if (a.max_allocated_bytes > 0) {
      fmt::print("    max allocated seen: {}\n", format_bytes(a.max_allocated_bytes));
    }
  }
  if (state.damaged_records > 0) {
    fmt::print("  ({} unreadable journal record(s) skipped)\n", state.damaged_records);
  }
}

int exit_code_of(const launch::RunOutcome& outcome)
{
  if (outcome.interrupted) {
    return k_exit_interrupted;
  }
  if (outcome.detached || outcome.outcome == launch::RunResult::succeeded) {
    return k_exit_ok;
  }
  return k_exit_job_errors;
}

} // namespace lg::cli
