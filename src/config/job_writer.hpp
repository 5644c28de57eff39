// A JobSpec written back out in the forms users know (`launchguard convert`):
// a complete launchguard TOML job file, Megatron Bridge `key=value`
// overrides, or Megatron-LM command-line flags. Pure: no I/O. Each form reads
// back (load_job_text, apply_bridge_settings, job_from_megatron_args) into the
// same job, for every field the form can carry.
#pragma once

#include "config/job_spec.hpp"

#include <string>
#include <vector>

namespace lg::config {

// Every key of the job file schema, explicit (no preset), in schema order,
// headed by `comment` as "# " lines (none when empty). Loading the text gives
// the same job (`convert --to toml`, `tune --write-job`).
std::string job_to_toml(const JobSpec& spec, const std::string& comment);

// `text` as a TOML basic string, quotes and escapes included.
std::string toml_string(const std::string& text);

// The ConfigContainer overrides of bridge_settings_from_job, one `key=value` per entry.
std::vector<std::string> job_to_bridge_overrides(const JobSpec& spec);

// The Megatron-LM flags for the model, parallelism and training settings.
// `lossy` receives one line per setting Megatron-LM has no flag for (LoRA,
// GeGLU), so the caller can say so.
std::vector<std::string> job_to_megatron_args(const JobSpec& spec, std::vector<std::string>& lossy);

} // namespace lg::config
