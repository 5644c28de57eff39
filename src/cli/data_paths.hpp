// Where launchguard finds its data (templates, presets, signatures): next to
// the binary (<exe>/../share/launchguard), in the source tree it was built
// from, and where $LAUNCHGUARD_DATA_DIR points. User additions live under
// $XDG_CONFIG_HOME/launchguard.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

namespace lg::cli {

// Shipped data roots, highest priority first: $LAUNCHGUARD_DATA_DIR, the
// install prefix relative to the executable, the source tree.
std::vector<std::filesystem::path> data_dirs();

// $XDG_CONFIG_HOME/launchguard (default ~/.config/launchguard).
std::filesystem::path user_config_dir();

// Return the first existing `<root>/<kind>/<name>` over data_dirs(), e.g.
// find_data_file("templates", "torchrun.sbatch.mustache"). Empty if none.
std::filesystem::path find_data_file(std::string_view kind, std::string_view name);

// Preset search path: shipped `presets/` dirs, then the user's
// $XDG_CONFIG_HOME/launchguard/presets, then `extra` (from --preset-dir).
std::vector<std::filesystem::path> preset_dirs(const std::vector<std::filesystem::path>& extra = {});

} // namespace lg::cli
