// A Megatron Bridge recipe command line (`python scripts/training/run_recipe.py
// --recipe llama3_70b_pretrain -tp 8 model.pipeline_model_parallel_size=2 …`):
// the recipe name and the ConfigContainer settings it gives, through the
// convenience flags and the trailing `key=value` words. Flag names and what
// each sets: Megatron-Bridge scripts/training/run_recipe.py (module docstring,
// "Common ConfigContainer overrides"; _build_parser).
#pragma once

#include "config/bridge_keys.hpp"

#include <optional>
#include <string>
#include <vector>

namespace lg::config {

struct BridgeCommandLine
{
  std::string recipe;  // --recipe NAME (or --model NAME), empty when absent
  std::vector<BridgeSetting> settings;
};

// Read `argv` as a Bridge recipe command line, or return nullopt when it is
// not one (no --recipe/--model and no `section.key=value` word; a Megatron-LM
// command line, say). Locations are "command line:1:<word index>". Throws
// InputError for a convenience flag without its value.
std::optional<BridgeCommandLine> read_bridge_command_line(const std::vector<std::string>& argv);

} // namespace lg::config
