// A Megatron Bridge configuration YAML (the ConfigContainer a run writes next
// to its checkpoints, or a `--config-file` override file: model, train,
// optimizer, ddp, dataset, peft, mixed_precision, comm_overlap, env_vars, …)
// read into BridgeSettings, one per scalar or scalar list, each located
// file:line:column. Parsed with yaml-cpp (ARCHITECTURE.md "Decisions").
#pragma once

#include "config/bridge_keys.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace lg::config {

// Flatten `text` into dotted settings ("model.tensor_model_parallel_size" =
// "8"). Throws InputError: malformed YAML (file:line:column), a root that is not
// a mapping, nesting deeper than 32 levels or more than 100,000 values (alias
// expansion included).
std::vector<BridgeSetting> read_bridge_yaml_text(std::string_view text, const std::string& display_name);

// Same, from the file at `path` (a regular file of at most 16 MiB).
std::vector<BridgeSetting> read_bridge_yaml(const std::filesystem::path& path);

} // namespace lg::config
