#include "watch/observed_state.hpp"

namespace lg::watch {

namespace {

constexpr std::string_view k_submitted = "SUBMITTED";
constexpr std::string_view k_vanished = "VANISHED";

} // namespace

ObservedState observed_state(const slurm::JobStatus& status)
{
  return ObservedState::of(status.out_of_memory() ? slurm::JobState::out_of_memory : status.state);
}

std::string to_string(const ObservedState& state)
{
  switch (state.kind) {
    case ObservedState::Kind::none:
      return {};
    case ObservedState::Kind::submitted:
      return std::string(k_submitted);
    case ObservedState::Kind::vanished:
      return std::string(k_vanished);
    case ObservedState::Kind::slurm:
      break;
  }
  return std::string(slurm::to_string(state.state));
}

ObservedState parse_observed_state(std::string_view text)
{
  if (text.empty()) {
    return {};
  }
  if (text == k_submitted) {
    return ObservedState::submitted();
  }
  if (text == k_vanished) {
    return ObservedState::vanished();
  }
  return ObservedState::of(slurm::parse_job_state(text));
}

} // namespace lg::watch
