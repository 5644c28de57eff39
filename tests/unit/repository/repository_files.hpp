// Reading the checkout from the repository tests: the files git tracks (or,
// outside a git checkout, every file under the source dir but build trees).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace lg::testing {

// The source tree the tests were built from (LG_SOURCE_DIR).
std::filesystem::path source_dir();

// Every file of the project, relative to source_dir(), sorted.
std::vector<std::filesystem::path> project_files();

// The whole text of `path` (relative to source_dir()); empty if unreadable.
std::string project_text(const std::filesystem::path& path);

} // namespace lg::testing
