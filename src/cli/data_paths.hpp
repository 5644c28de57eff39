// Where launchguard finds its data files (templates, presets): the user's
// override directory, the installed share directory next to the binary, then
// the source tree (for running from a build directory).
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

namespace lg::cli {

// Return the directories searched for `kind` ("templates", "presets/models",
// …), in order: $LAUNCHGUARD_DATA_DIR/<kind>, <exe dir>/../share/launchguard/<kind>,
// <source dir>/<kind> (when built with LG_SOURCE_DIR). Directories that do not
// exist are included; callers test files.
std::vector<std::filesystem::path> data_dirs(std::string_view kind);

// Return the first existing <dir>/<name> over data_dirs(kind). Throws
// InputError listing the places searched when there is none.
std::filesystem::path find_data_file(std::string_view kind, std::string_view name);

} // namespace lg::cli
