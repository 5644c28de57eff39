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

// A Megatron-LM command split for writing it again: the program (the words up
// to the training script, `torchrun --nproc-per-node 8 pretrain_gpt.py`; with
// no `*.py` word, those before the first flag), then each flag with its
// values, marked when job_from_megatron_args reads it into a job key (every
// occurrence of such a flag is marked). Throws InputError on a malformed value
// of a flag it reads, as job_from_megatron_args does.
struct MegatronCommand
{
  struct Flag
  {
    std::string name;                // without the dashes or an inline "=value"
    std::vector<std::string> words;  // the flag word and its values
    bool sets_job_key = false;
  };
  std::vector<std::string> program;
  std::vector<Flag> flags;
};
MegatronCommand split_megatron_command(const std::vector<std::string>& argv);

// Parse a --moe-layer-freq value: "1", "2", "[0,1,1]", "([0]*3+[1]*58)".
// Returns one 0/1 per layer (empty = every layer MoE). Throws InputError.
std::vector<int> parse_moe_layer_freq(const std::string& text, int num_layers);

} // namespace lg::config
