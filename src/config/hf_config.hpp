// A Hugging Face config.json (a file, or a model directory holding one) read
// into the JobSpec's model, field by field, the way Megatron Bridge's
// AutoBridge maps it (Megatron-Bridge src/megatron/bridge/models/conversion/
// model_bridge.py CONFIG_MAPPING, and each model's *_bridge.py for what it
// fixes per architecture). Architectures: docs/inputs.md.
#pragma once

#include "config/job_spec.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace lg::config {

// Set spec.model from the config at `path` (a directory means path/config.json)
// and record each field's location ("model.num_layers" -> config.json:3:5).
// Keys the caller applies afterwards (a job file's [model] keys) override it.
// Throws InputError: file unreadable or not a regular file, JSON malformed
// (file:line:column), architecture unknown or not modelled, a required field
// missing or of the wrong type (naming the field and the file). A field read
// but not usable by the estimator (sliding windows, attention sinks, extra
// norms, a vision tower) adds a warning to spec.input_findings.
void apply_hf_config(JobSpec& spec, const std::filesystem::path& path);

// Same, from `text`; `display_name` is used in locations and messages.
void apply_hf_config_text(JobSpec& spec, std::string_view text, const std::string& display_name);

} // namespace lg::config
