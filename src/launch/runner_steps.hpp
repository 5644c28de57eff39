// The steps drive_run (runner.cpp) strings together, split by concern:
// submission.cpp (submit an attempt exactly once) and attempt_watch.cpp
// (follow it to its end and diagnose it). Internal to src/launch.
#pragma once

#include "launch/journal.hpp"
#include "launch/run_state.hpp"
#include "launch/runner.hpp"

#include <chrono>
#include <string>

namespace lg::launch {

// Print one progress line through the context.
void say(const RunContext& context, const std::string& line);

// The context's clock (the real one unless a test injects one).
watch::Clock& clock_of(const RunContext& context);

// Sleep `total`, in slices, returning early on a signal.
void nap(const RunContext& context, std::chrono::milliseconds total);

// "attempt-N/job.sbatch", relative to the run directory.
std::string script_path(int number);

// Submit `attempt` exactly once (claim, tag, lookup before any new sbatch),
// recording submit_started and submitted. Throws SlurmRejected (recorded as
// submit_failed) and SystemError when Slurm stays unreachable.
void submit_attempt(Journal& journal, const AttemptState& attempt, const config::JobSpec& spec,
                    const RunOptions& options, const RunContext& context);

// Watch `attempt` until Slurm says it ended (or it vanished); diagnose its
// logs and record the diagnosis and attempt_finished. Returns early, with
// nothing recorded, on a signal.
void watch_attempt(Journal& journal, const AttemptState& attempt, const config::JobSpec& spec,
                   const RunOptions& options, const RunContext& context);

} // namespace lg::launch
