// Slurm state names <-> JobState. The table is the one source for both
// directions; squeue's two-letter codes are accepted too.
#include "slurm/job_status.hpp"

#include <array>
#include <cctype>

namespace lg::slurm {

namespace {

struct StateName
{
  JobState state;
  std::string_view name;
  std::string_view short_name; // squeue %t
};

constexpr std::array k_state_names = {
  StateName{JobState::pending, "PENDING", "PD"},
  StateName{JobState::configuring, "CONFIGURING", "CF"},
  StateName{JobState::running, "RUNNING", "R"},
  StateName{JobState::completing, "COMPLETING", "CG"},
  StateName{JobState::suspended, "SUSPENDED", "S"},
  StateName{JobState::requeued, "REQUEUED", "RQ"},
  StateName{JobState::resizing, "RESIZING", "RS"},
  StateName{JobState::stopped, "STOPPED", "ST"},
  StateName{JobState::completed, "COMPLETED", "CD"},
  StateName{JobState::failed, "FAILED", "F"},
  StateName{JobState::cancelled, "CANCELLED", "CA"},
  StateName{JobState::timeout, "TIMEOUT", "TO"},
  StateName{JobState::out_of_memory, "OUT_OF_MEMORY", "OOM"},
  StateName{JobState::node_fail, "NODE_FAIL", "NF"},
  StateName{JobState::preempted, "PREEMPTED", "PR"},
  StateName{JobState::boot_fail, "BOOT_FAIL", "BF"},
  StateName{JobState::deadline, "DEADLINE", "DL"},
  StateName{JobState::revoked, "REVOKED", "RV"},
  StateName{JobState::special_exit, "SPECIAL_EXIT", "SE"},
};

} // namespace

JobState parse_job_state(std::string_view text)
{
  // "CANCELLED by 0" → "CANCELLED"; "CANCELLED+" (sacct column cut) too.
  const size_t end = text.find_first_of(" +");
  std::string_view word = text.substr(0, end);
  while (!word.empty() && std::isspace(static_cast<unsigned char>(word[0]))) {
    word.remove_prefix(1);
  }
  if (word.empty()) {
    return JobState::unknown;
  }
  for (const auto& entry : k_state_names) {
    if (word == entry.name || word == entry.short_name) {
      return entry.state;
    }
  }
  // Hold variants of a requeue are still waiting to run.
  if (word == "REQUEUE_HOLD" || word == "REQUEUE_FED"
      || word == "RESV_DEL_HOLD") {
    return JobState::requeued;
  }
  return JobState::unknown;
}

std::string_view to_string(JobState state)
{
  for (const auto& entry : k_state_names) {
    if (entry.state == state) {
      return entry.name;
    }
  }
  return "UNKNOWN";
}

bool is_terminal(JobState state)
{
  switch (state) {
  case JobState::completed:
  case JobState::failed:
  case JobState::cancelled:
  case JobState::timeout:
  case JobState::out_of_memory:
  case JobState::node_fail:
  case JobState::preempted:
  case JobState::boot_fail:
  case JobState::deadline:
  case JobState::revoked:
  case JobState::special_exit:
    return true;
  default:
    return false;
  }
}

bool JobStatus::out_of_memory() const
{
  if (state == JobState::out_of_memory) {
    return true;
  }
  for (const auto& step : steps) {
    if (step.state == JobState::out_of_memory) {
      return true;
    }
  }
  return false;
}

} // namespace lg::slurm
