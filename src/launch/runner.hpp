// Driving a run from its journal: prepare an attempt (render + artifact),
// submit it exactly once, watch it to the end, diagnose it, and retry with
// the ladder's fix. Every step is recorded before the next begins, so a run
// killed at any point resumes with drive_run() where it stopped: an attempt
// whose sbatch call may have happened is looked up by its tag before any new
// sbatch, so there is never a duplicate job and never an orphan.
#pragma once

#include "config/job_spec.hpp"
#include "diagnose/matcher.hpp"
#include "launch/journal.hpp"
#include "launch/run_state.hpp"
#include "slurm/client.hpp"
#include "watch/clock.hpp"
#include "watch/progress.hpp"
#include "watch/session.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace lg::launch {

// What drive_run needs from the outside world; tests pass fakes.
struct RunContext
{
  slurm::Client* client = nullptr;
  const diagnose::Matcher* matcher = nullptr;
  // Where `[launch] template` names are looked up (job_script.hpp).
  std::vector<std::filesystem::path> template_dirs;
  // Test seams, empty by default: render the batch script of `spec`
  // (default: launch::render_job_script with template_dirs), rebuild the
  // original job from the "source" saved in run_created (default:
  // launch::load_job_source).
  std::function<std::string(const config::JobSpec&)> render;
  std::function<config::JobSpec(const nlohmann::json&)> load_source;
  watch::Clock* clock = nullptr;  // the real clock when null
  // Slurm status questions of the watch session; client->query when empty
  // (the CLI passes the per-user poll cache shared by all its processes).
  watch::QueryFn query;
  std::function<bool()> interrupted;                     // SIGINT/SIGTERM seen
  std::function<void(const std::string&)> progress;      // one line per event
  std::function<void(const std::string&)> status;        // overwritable status line
  std::filesystem::path submit_dir = ".";  // where sbatch runs; base of --output paths
};

struct RunOptions
{
  int max_attempts = 1;
  bool detach = false;       // return once the current attempt is submitted
  bool retry_infra = false;  // resubmit unchanged after node failure / preemption
  std::vector<std::string> sbatch_args;  // passed to sbatch before the script
  watch::PollSchedule schedule;
  // How often the job's logs are read between Slurm checks (live memory,
  // early cancel, hang detection); reading logs costs Slurm nothing.
  std::chrono::milliseconds follow_every{std::chrono::seconds(5)};
  int submit_tries = 5;
  // How long one sbatch call may take (the Slurm client's submit timeout);
  // bounds the wait for an sbatch orphaned by a killed launchguard.
  int submit_timeout_seconds = 60;
  std::chrono::milliseconds submit_backoff{std::chrono::seconds(2)};
  // Cancel a job whose logs show a fatal failure (an OOM on one rank) while
  // it still runs, after this grace: the other ranks would otherwise hang in
  // NCCL until the watchdog fires, burning GPU-hours.
  std::chrono::milliseconds failure_grace{std::chrono::seconds(60)};
  // Hangs (watch/progress.hpp): while Slurm says RUNNING and no iteration
  // line advanced for the rule's threshold, the attempt is reported as
  // hang_no_progress; after hang_grace more without progress the job is
  // cancelled (unless hang_cancel is off) and the retry policy decides. The
  // default grace, 6 minutes, puts the cancel (at 11 minutes of silence with
  // the 5-minute floor) after the 10-minute NCCL watchdog timeout Megatron
  // sets by default, so a hang inside a collective leaves its flight-recorder
  // dump first (TORCH_NCCL_DUMP_ON_TIMEOUT).
  watch::HangRule hang;
  std::chrono::milliseconds hang_grace{std::chrono::minutes(6)};
  bool hang_cancel = true;
  // A job Slurm stops knowing (neither squeue nor sacct, while both answer)
  // for this long is reported as vanished and its attempt ends.
  std::chrono::milliseconds vanish_after{std::chrono::minutes(10)};
  // The estimator's allocated peak, shown next to live memory reports (0:
  // not known).
  double estimated_allocated_bytes = 0;
};

struct RunOutcome
{
  bool finished = false;     // run_finished recorded
  bool interrupted = false;  // stopped by a signal; resumable
  bool detached = false;     // returned after submission (--detach)
  std::optional<RunResult> outcome;  // nullopt unless finished
  std::string reason;
};

// Record run_created (with `source`, enough to rebuild the job) and prepare
// attempt 1 from `spec`.
void begin_run(Journal& journal,
               const config::JobSpec& spec,
               const nlohmann::json& source,
               const RunOptions& options,
               const RunContext& context);

// The hang options a run was created with (run_created's hang_floor_s,
// hang_grace_s, hang_cancel), over `options`' own where absent, so that a
// resumed watch judges hangs as the submit did.
void read_hang_options(const nlohmann::json& run_created, RunOptions& options);

// Drive the run in `journal` until it finishes, is interrupted, or (with
// detach) its current attempt is submitted. Throws SystemError when Slurm
// stays unreachable or refuses the job (both recorded first).
RunOutcome drive_run(Journal& journal, const RunOptions& options, const RunContext& context);

// The job of attempt `number`: the original job with the fixes of attempts
// 2..number applied in order.
config::JobSpec attempt_spec(const config::JobSpec& base, const RunState& state, int number);

} // namespace lg::launch
