// The retry ladder: given why an attempt failed, decide whether another
// attempt can help and with which change. The memory ladder follows the
// Megatron Bridge memory-tuning guide's order, each step re-estimated before it is chosen and
// skipped when it does not apply or is predicted not to fit. Pure.
#pragma once

#include "config/job_spec.hpp"
#include "slurm/job_status.hpp"

#include <optional>
#include <string>
#include <vector>

namespace lg::launch {

enum class RetryKind {
  none,       // do not retry; `reason` says why
  with_fix,   // resubmit with `spec` (a fix applied)
  unchanged,  // resubmit the same job (infrastructure failure + --retry-infra,
              // a run's first hang, or a hardware failure with its node
              // excluded: `exclude`)
};

struct RetryDecision
{
  RetryKind kind = RetryKind::none;
  std::string fix;          // fix id when with_fix
  std::string description;  // what changed
  std::string reason;       // why this decision, one line for the journal
  config::JobSpec spec;     // the job to submit next (with_fix / unchanged)
  // Nodes the next attempt stays off (sbatch --exclude, in spec's
  // [slurm] extra_args): the earlier attempts' and the one that failed now.
  std::vector<std::string> exclude;
};

struct RetryInput
{
  std::string category;          // diagnosis category (diagnose/category.hpp)
  std::string suggested_change;  // diagnosis's fix id, may be empty
  std::vector<std::string> fixes_tried;  // fix ids of earlier attempts
  std::vector<std::string> earlier_categories;  // diagnoses of the attempts before this one
  bool retry_infra = false;      // --retry-infra
  slurm::JobState slurm_state = slurm::JobState::unknown;  // the failed attempt's final state
  std::string host;              // the node the diagnosis names (or Slurm's, for a one-node job)
  std::vector<std::string> excluded;  // nodes the failed attempt already excluded
};

// The job with `nodes` excluded: `spec` whose [slurm] extra_args lose the
// exclusion of `previous` (if there) and gain the one of `nodes`.
config::JobSpec with_excluded_nodes(config::JobSpec spec, const std::vector<std::string>& previous,
                                    const std::vector<std::string>& nodes);

// True for a failure a bad node causes (Xid, ECC, a lost GPU: gpu_hardware;
// Slurm's NODE_FAIL), where leaving that node out is the retry's change.
bool is_node_failure(const std::string& category, slurm::JobState slurm_state);

// Decide the next attempt for `spec` after a failure described by `input`.
// Attempt limits are the caller's business.
RetryDecision decide_retry(const config::JobSpec& spec, const RetryInput& input);

// True for categories where a memory fix can help.
bool is_memory_failure(const std::string& category);

// True for failures of the machine, not of the job (node failure,
// preemption, GPU hardware, a foreign process on the GPU).
bool is_infrastructure_failure(const std::string& category);

} // namespace lg::launch
