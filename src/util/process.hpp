// Running child processes (sbatch, squeue, sacct, scontrol, scancel). This is
// the only module in the project that spawns processes.
#pragma once

#include "util/error.hpp"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lg::process {

struct Command
{
  std::string program;                    // "sbatch"; resolved via PATH
  std::vector<std::string> args;          // never a shell string
  std::map<std::string, std::string> env; // overrides on top of ours
  // Inherited variables whose name starts with one of these are not passed
  // on, e.g. "SLURM_" so that sbatch run from inside a job does not inherit
  // the outer job's settings. Overrides in `env` are still applied.
  std::vector<std::string> env_remove_prefixes;
  std::optional<std::string> stdin_text; // fed to stdin; otherwise /dev/null
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
};

struct Result
{
  int exit_code = 0;         // valid when !signal
  std::optional<int> signal; // set if the child died from a signal
  std::string out;
  std::string err;

  // Return true if the child exited with status 0.
  bool ok() const
  {
    return !signal && exit_code == 0;
  }
};

// The program ran longer than its timeout; its process group was killed.
// Whatever it printed before is kept for the error message.
class TimeoutError : public SystemError
{
public:
  TimeoutError(const std::string& command_text,
               std::chrono::milliseconds timeout,
               std::string partial_out,
               std::string partial_err);

  std::string out;
  std::string err;
};

// Run `command` to completion and capture stdout and stderr separately.
// A non-zero exit code or a signal is returned, not thrown. Throws
// SystemError if the program cannot be started and TimeoutError if it runs
// past `command.timeout`; on timeout the child's whole process group
// (grandchildren included) is killed with SIGKILL.
Result run(const Command& command);

// Shell-quoted rendering of `command` for logs and error messages, with the
// `env` overrides in front: "SLURM_CONF=/x sbatch --parsable job.sbatch".
// A value holding a secret (lg::secrets::redact_assignments) is not shown.
std::string to_display_string(const Command& command);

// This machine's host name (gethostname), to tell whether a recorded process
// ran here; empty if it cannot be read.
std::string host_name();

// Return true if a process on this host has `needle` in one of its command
// line arguments (read from /proc). Used to tell whether an sbatch started by
// a launchguard that was killed is still in flight.
bool any_process_with_argument(std::string_view needle);

// Describe how `result` ended: "exit code 1" or "signal 9 (Killed)".
std::string describe_status(const Result& result);

} // namespace lg::process
