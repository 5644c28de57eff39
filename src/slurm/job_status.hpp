// What launchguard knows about one Slurm job: the values sacct/squeue report,
// parsed into types. No Slurm command syntax here (see parse.hpp).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lg::slurm {

// Slurm's job id as printed by sbatch --parsable ("12345"; array tasks are
// "12345_7", heterogeneous components "12345+0").
using JobId = std::string;

// Slurm job states (sacct/squeue long names). `unknown` is anything we could
// not read; the raw text is kept in JobStatus::raw_state.
enum class JobState {
  unknown,
  pending,
  configuring,
  running,
  completing,
  suspended,
  requeued,
  resizing,
  stopped,
  completed,
  failed,
  cancelled,
  timeout,
  out_of_memory,
  node_fail,
  preempted,
  boot_fail,
  deadline,
  revoked,
  special_exit,
};

// Return the state for a Slurm state word: "RUNNING", "CANCELLED by 0",
// "CANCELLED+" (truncated sacct column), "CD" (squeue short form). Anything
// else is JobState::unknown.
JobState parse_job_state(std::string_view text);

// Return Slurm's spelling of `state` ("OUT_OF_MEMORY"), "UNKNOWN" for unknown.
std::string_view to_string(JobState state);

// Return true if a job in `state` will not change state again by itself
// (requeue aside). Unknown is not terminal.
bool is_terminal(JobState state);

// sacct's ExitCode column "code:signal", e.g. "0:9" (killed by SIGKILL) or
// "1:0" (exit status 1).
struct ExitStatus
{
  int code = 0;
  int signal = 0;

  friend bool operator==(const ExitStatus&, const ExitStatus&) = default;
};

// One job step from sacct: "batch", "extern", "0", "1", …
struct StepStatus
{
  std::string step;
  std::string name;
  JobState state = JobState::unknown;
  std::string raw_state;
  std::optional<ExitStatus> exit;
  std::string nodes{};  // the step's NodeList ("n[1-4]"; the batch step: the batch host)
};

// Where a JobStatus came from; squeue knows no exit codes and forgets jobs
// MinJobAge seconds after they end.
enum class StatusSource { sacct, squeue, fake };

struct JobStatus
{
  JobId id;
  std::string name;
  JobState state = JobState::unknown;
  std::string raw_state; // as printed: "CANCELLED by 0"
  std::optional<ExitStatus> exit;
  std::optional<std::chrono::seconds> elapsed;
  std::string nodes;   // "n[1-4]"; empty while pending
  std::string reason;  // "Resources", "Priority", "None", …
  std::string comment; // empty when unset ("(null)" in squeue)
  std::vector<StepStatus> steps; // sacct only
  StatusSource source = StatusSource::sacct;

  // Return true if the job or one of its steps ended OUT_OF_MEMORY. A step
  // killed by the cgroup OOM handler under srun usually leaves the job itself
  // FAILED (srun exits 1), so the steps must be looked at.
  bool out_of_memory() const;
};

} // namespace lg::slurm
