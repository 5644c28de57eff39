// The hang report of one watched job, shared by every watch loop (`submit`,
// `watch RUN_ID`, plain `watch JOB_ID --log FILE`): the lines the loop's log
// tail read go to a ProgressTracker; each look, while Slurm says RUNNING, a
// stall is reported once, its end (iterations again) is reported, and the
// cancel comes due after the grace when the caller may cancel. Pure: the
// caller says what to print and does the cancelling; the clock is injected.
#pragma once

#include "diagnose/diagnose.hpp"
#include "watch/clock.hpp"
#include "watch/log_tail.hpp"
#include "watch/observed_state.hpp"
#include "watch/progress.hpp"

#include <chrono>
#include <optional>
#include <string_view>

namespace lg::watch {

struct HangPolicy
{
  HangRule rule;
  std::chrono::milliseconds grace{std::chrono::minutes(6)};
  bool cancel = true;  // cancel after the grace (the caller's decision for jobs it did not submit)
};

// What one look found.
struct HangLook
{
  bool reported = false;       // a stall began: report it (once per stall)
  bool resumed = false;        // the reported stall ended: iterations advance again
  bool cancel_now = false;     // the grace ran out: cancel the job (once)
  std::optional<Stall> stall;  // the stall now (reported or not)
};

class HangMonitor
{
public:
  HangMonitor(const Clock& clock, HangPolicy policy);

  // A log line the watch loop tailed.
  void observe(const LogLine& line);

  // One look, with what the watcher last knew of the job. Only a job Slurm
  // says is RUNNING is judged; once the cancel came due nothing more is.
  HangLook look(const ObservedState& state);

  // The latest stall seen and not resumed since (for the final diagnosis).
  const std::optional<Stall>& hang() const { return m_hang; }

  const HangPolicy& policy() const { return m_policy; }

private:
  const Clock& m_clock;
  HangPolicy m_policy;
  ProgressTracker m_progress;
  std::optional<Clock::time_point> m_seen;  // reported, not resumed since
  std::optional<Stall> m_hang;
  bool m_cancelled = false;
};

// The report line's words after the job's name: "hang_no_progress while
// Slurm says RUNNING: <the stall>; <what follows>".
std::string describe_hang(const Stall& stall, std::string_view what_follows);

// The final diagnosis of a job the watcher saw hang. The hang wins over a
// log with no failure, no known cause (unknown) or the time limit it ran
// into (the cancel's teardown and TIMEOUT are consequences); a known cause
// in the logs (the NCCL watchdog's timeout, a crash) is more precise and
// stays. True when the hang became the diagnosis.
bool apply_hang(diagnose::Diagnosis& diagnosis, const Stall& stall, const diagnose::Catalogue& catalogue);

}  // namespace lg::watch
