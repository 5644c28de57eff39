// What a watcher last knew of one job, with the one spelling used in output,
// --json and the journal.
#pragma once

#include "slurm/job_status.hpp"

#include <string>
#include <string_view>

namespace lg::watch {

struct ObservedState
{
  enum class Kind {
    none,       // nothing known yet
    submitted,  // sbatch returned an id; Slurm not asked since
    slurm,      // Slurm's state (`state`)
    vanished,   // unknown to squeue and sacct for longer than --vanish-after
  };
  Kind kind = Kind::none;
  slurm::JobState state = slurm::JobState::unknown;

  static ObservedState of(slurm::JobState slurm_state) { return {Kind::slurm, slurm_state}; }
  static ObservedState submitted() { return {Kind::submitted, slurm::JobState::unknown}; }
  static ObservedState vanished() { return {Kind::vanished, slurm::JobState::unknown}; }
  // True if Slurm last said `slurm_state`.
  bool is(slurm::JobState slurm_state) const { return kind == Kind::slurm && state == slurm_state; }

  friend bool operator==(const ObservedState&, const ObservedState&) = default;
};

// Slurm's state of a job as a watcher reports it: a job whose step the
// cgroup OOM handler killed is OUT_OF_MEMORY even where Slurm says FAILED.
ObservedState observed_state(const slurm::JobStatus& status);

// "" (nothing yet), "SUBMITTED", Slurm's spelling ("OUT_OF_MEMORY") or
// "VANISHED".
std::string to_string(const ObservedState& state);

// The inverse of to_string, for journal records: any other word is Slurm's
// (JobState::unknown if Slurm has no such state).
ObservedState parse_observed_state(std::string_view text);

} // namespace lg::watch
