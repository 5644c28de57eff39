// The Megatron-LM launch line of a job (what `render` runs for
// framework = "megatron-lm"): the program of `[launch] command`, the job's own
// settings as Megatron-LM flags (job_to_megatron_args, the form `convert --to
// megatron-args` prints), then the command's flags that set no job key (data,
// tokenizer, learning rate, checkpoints …). Pure.
#pragma once

#include "config/job_spec.hpp"

#include <string>
#include <vector>

namespace lg::config {

// The launch words of `spec`, a Megatron-LM job; the program is
// `python pretrain_gpt.py` when the command names none. A flag of the command that
// sets a job key (or that the job's flags write) is replaced by the job's
// value, so the script runs the job that was judged, whichever input it came
// from (TOML, Hugging Face config, Bridge YAML or overrides). Throws
// InputError on a malformed value of such a flag.
std::vector<std::string> megatron_launch_command(const JobSpec& spec);

} // namespace lg::config
