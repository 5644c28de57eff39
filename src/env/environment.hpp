// The composed job environment: ordered variables, each with the layer that
// decided it and the reason (rule id + upstream citation), plus the findings
// the composer raised. Produced by env::compose (compose.hpp), read by
// `launchguard env`, render and rules.
#pragma once

#include "util/diagnostic.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace lg::env {

// Where a value came from, lowest precedence first. `preset` is reserved:
// presets cannot carry environment variables yet.
enum class Layer { policy, preset, job, command_line };

// `set` exports the value; `unset` removes a variable the submitting shell
// (sbatch exports it by default) might otherwise leak into the job.
enum class Action { set, unset };

struct Variable
{
  std::string name;
  std::string value;  // empty when action is unset
  Action action = Action::set;
  Layer layer = Layer::policy;
  std::string rule;      // "env.cuda_device_max_connections_tp_cp"; "env.user" for user-only
  std::string reason;    // why this value, in words
  std::string citation;  // "[ML] megatron/training/arguments.py:1453-1479"; empty for user-only
  // "%j" in `value` is the Slurm job id, filled in where the job runs (the
  // job script writes $SLURM_JOB_ID there): a policy value per job. A
  // user's value is always taken literally.
  bool per_job = false;
};

struct Environment
{
  std::vector<Variable> variables;   // policy table order, then user-only in input order
  std::vector<Diagnostic> findings;  // rule ids "env.*"

  // Return the variable called `name`, or nullptr.
  const Variable* find(std::string_view name) const;
};

// Return "policy", "preset", "job" or "command line".
const char* to_string(Layer layer);

// Return true if the composed PYTORCH_CUDA_ALLOC_CONF sets
// expandable_segments:True (the estimator's fragmentation switch).
bool has_expandable_segments(const Environment& environment);

// Return true if `name` is a valid shell variable name: [A-Za-z_][A-Za-z0-9_]*.
bool is_valid_name(std::string_view name);

} // namespace lg::env
