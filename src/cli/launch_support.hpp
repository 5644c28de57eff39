// What submit and watch share: the run context wired to the real world
// (Slurm tools, the catalogue, templates, signals, the terminal), the job
// source saved in the journal, and the state directory.
#pragma once

#include "cli/job_input.hpp"
#include "diagnose/matcher.hpp"
#include "launch/runner.hpp"
#include "slurm/client.hpp"
#include "watch/poll_cache.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>

namespace lg::cli {

struct GlobalOptions;

// The live pieces a RunContext points to; keep this alive while driving.
struct LaunchEnvironment
{
  std::unique_ptr<slurm::Client> client;
  std::unique_ptr<diagnose::Matcher> matcher;
  std::unique_ptr<watch::PollCache> poll_cache;  // shared with the user's other launchguard processes
  launch::RunContext context;
};

// Build the context: real Slurm client, job states asked through the poll
// cache in `state_dir`/poll, catalogue, template rendering, SIGINT and
// SIGTERM handlers (the run stays resumable; exit 130), progress lines on
// stderr and a one-line status on a TTY.
LaunchEnvironment make_launch_environment(const GlobalOptions& global, const std::filesystem::path& state_dir);

// The floor and ceiling of --poll-interval/--poll-max, in seconds: one
// launchguard process asks Slurm at most once a second (and the processes of
// one user share one poll cache, see watch/poll_cache.hpp).
inline constexpr double k_min_poll_seconds = 1;
inline constexpr double k_max_poll_seconds = 3600;

// Options for the poll schedule and state dir shared by submit and watch.
void add_launch_options(boost::program_options::options_description& options);

// The number of seconds in option `name`, as milliseconds; `fallback` when
// it is not given. UsageError (exit 2) outside [low, high] or not a number
// (nan, inf).
std::chrono::milliseconds seconds_option(const ParsedArgs& parsed, const std::string& name, double low, double high,
                                         std::chrono::milliseconds fallback);
watch::PollSchedule poll_schedule(const ParsedArgs& parsed);
std::chrono::milliseconds vanish_after(const ParsedArgs& parsed);

// Set what submit and `watch RUN_ID` share from the command line: the poll
// schedule, --vanish-after, the log reading interval (every 5 s, or every
// --poll-interval when shorter) and hang detection (--hang-floor,
// --hang-grace, --no-hang-cancel); what the command line does not give
// keeps its value in `options` (a resumed run's, from run_created).
void apply_watch_options(const ParsedArgs& parsed, launch::RunOptions& options);
std::filesystem::path state_dir(const ParsedArgs& parsed);

// What run_created stores to rebuild the job on resume (launch/job_source.hpp)
// for the job named on the command line.
nlohmann::json job_source(const ParsedArgs& parsed);

// Print the run's attempts (text) or return them (JSON).
nlohmann::json run_summary_json(const launch::RunState& state);
void print_run_summary(const GlobalOptions& global, const launch::RunState& state);

// The exit code for `outcome` (0 ok, 1 failed for good, 130 interrupted).
int exit_code_of(const launch::RunOutcome& outcome);

} // namespace lg::cli
