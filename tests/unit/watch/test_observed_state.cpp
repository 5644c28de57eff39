// The one spelling of what a watcher last knew of a job (journal "state"
// records, `runs`, `watch --json`): Slurm's own state names
// (slurm/src/common/slurm_protocol_defs.c job_state_string), plus SUBMITTED
// and VANISHED, which are launchguard's.
#include "slurm/job_status.hpp"
#include "watch/observed_state.hpp"

#include <doctest/doctest.h>

using lg::slurm::JobState;
using lg::watch::ObservedState;

TEST_CASE("observed states read back from their spelling")
{
  const ObservedState states[] = {
    {},
    ObservedState::submitted(),
    ObservedState::vanished(),
    ObservedState::of(JobState::running),
    ObservedState::of(JobState::out_of_memory),
    ObservedState::of(JobState::node_fail),
  };
  for (const auto& s : states) {
    CHECK(lg::watch::parse_observed_state(lg::watch::to_string(s)) == s);
  }
  CHECK(lg::watch::to_string({}) == "");
  CHECK(lg::watch::to_string(ObservedState::of(JobState::out_of_memory)) == "OUT_OF_MEMORY");
  CHECK(lg::watch::to_string(ObservedState::vanished()) == "VANISHED");
  // Slurm's words as older journals hold them ("CANCELLED by 1000").
  CHECK(lg::watch::parse_observed_state("CANCELLED by 1000").is(JobState::cancelled));
  CHECK(lg::watch::parse_observed_state("NOT_A_STATE") == ObservedState::of(JobState::unknown));
}

TEST_CASE("a job whose step the OOM handler killed is OUT_OF_MEMORY even where Slurm says FAILED")
{
  lg::slurm::JobStatus status;
  status.state = JobState::failed;
  status.steps.push_back({"0", "python", JobState::out_of_memory, "OUT_OF_MEMORY", std::nullopt});
  CHECK(lg::watch::observed_state(status).is(JobState::out_of_memory));
  status.steps.clear();
  CHECK(lg::watch::observed_state(status).is(JobState::failed));
}
