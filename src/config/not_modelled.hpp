// What launchguard's memory estimator does not model, keyed by the setting
// that turns it on: one table for every input (Megatron-LM flags, Megatron
// Bridge keys, the launch itself). The readers (megatron_args, bridge_keys,
// audit) note the settings a job uses; `estimate` reads the whole list
// (not_modelled below) and gives the verdict `unknown` when it is not empty;
// `audit` says "memory not judged" with the same words. Pure, no I/O.
#pragma once

#include "config/job_spec.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lg::config {

// The table's words for `setting`: a Megatron-LM flag with its dashes
// ("--spec"; a family such as "--mamba-…" matches by prefix, a value after
// '=' is ignored), a Megatron Bridge key ("model.window_size"), or a launch
// setting ("deepspeed"). nullopt when the estimator models the setting or
// the table does not know it.
std::optional<std::string_view> not_modelled_what(std::string_view setting);

// Note on `spec` that it uses `setting` (which must be in the table; a
// setting the table does not know is ignored). `detail` is appended to the
// table's words ("stage 3", "= 4096"); a second note of a setting with the
// same words is dropped.
void note_not_modelled(JobSpec& spec, std::string_view setting, std::string_view detail = {},
                       std::optional<SourceLocation> where = std::nullopt);

// The Megatron-LM entry point `program` (a path) when its model is one the
// estimator does not have (pretrain_mamba.py, pretrain_vlm.py,
// pretrain_t5.py, pretrain_bert.py, multimodal …): the words, else nullopt.
std::optional<std::string> not_modelled_program(std::string_view program);

// Everything in `spec` that changes memory and is not modelled: what the
// readers noted, then what the fields themselves say (full-iteration CUDA
// graphs, an optimizer whose state is not modelled, a frozen module the
// estimate has no such module for, the flex token dispatcher).
std::vector<NotModelled> not_modelled(const JobSpec& spec);

} // namespace lg::config
