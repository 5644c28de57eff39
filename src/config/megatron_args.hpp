// A JobSpec from a Megatron-LM command line (`python pretrain_gpt.py
// --tensor-model-parallel-size 4 …`), with Megatron's own defaults for
// anything not given. Flag names: Megatron-LM
// megatron/training/arguments.py and argument_utils.py:95-107,160-212 (dataclass
// field name with `_` → `-`, `--no-` for a field that defaults to True).
#pragma once

#include "config/job_spec.hpp"

#include <string>
#include <vector>

namespace lg::config {

struct MegatronArgsOptions
{
  std::string gpu = "h100-80gb";  // GPU preset name (resolved by the caller)
  int nodes = 1;
  int gpus_per_node = 8;
};

// Build a JobSpec from `argv` (the whole training command). Unknown flags are
// ignored (Megatron has hundreds that do not affect preflight); malformed
// values of known flags throw InputError naming the flag and its position.
// Locations are "command line:1:<word index>".
JobSpec job_from_megatron_args(const std::vector<std::string>& argv,
                               const MegatronArgsOptions& options);

// Parse a --moe-layer-freq value: "1", "2", "[0,1,1]", "([0]*3+[1]*58)".
// Returns one 0/1 per layer (empty = every layer MoE). Throws InputError.
std::vector<int> parse_moe_layer_freq(const std::string& text, int num_layers);

} // namespace lg::config
