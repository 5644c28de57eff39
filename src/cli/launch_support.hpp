// What submit and watch share: the run context wired to the real world
// (Slurm tools, the catalogue, templates, signals, the terminal), the job
// source saved in the journal, and the state directory.
#pragma once

#include "cli/job_input.hpp"
#include "diagnose/matcher.hpp"
#include "launch/runner.hpp"
#include "slurm/client.hpp"

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
  launch::RunContext context;
};

// Build the context: real Slurm client, catalogue, template rendering, SIGINT
// and SIGTERM handlers (the run stays resumable; exit 130), progress lines on
// stderr and a one-line status on a TTY.
LaunchEnvironment make_launch_environment(const GlobalOptions& global);

// Options for the poll schedule and state dir shared by submit and watch.
void add_launch_options(boost::program_options::options_description& options);
watch::PollSchedule poll_schedule(const ParsedArgs& parsed);
std::chrono::milliseconds vanish_after(const ParsedArgs& parsed);
std::filesystem::path state_dir(const ParsedArgs& parsed);

// What run_created stores to rebuild the job on resume (launch/job_source.hpp)
// for the job named on the command line.
nlohmann::json job_source(const ParsedArgs& parsed);

// Print the run's attempts (text) or return them (JSON).
nlohmann::json run_summary_json(const launch::RunState& state);
void print_run_summary(const GlobalOptions& global, const launch::RunState& state);

// The exit code for `outcome` (SPEC.md: 0 ok, 1 failed for good, 130).
int exit_code_of(const launch::RunOutcome& outcome);

} // namespace lg::cli
