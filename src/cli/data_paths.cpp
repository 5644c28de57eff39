// Data-file lookup shared by render (templates) and presets.
#include "cli/data_paths.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"

#include <cstdlib>
#include <system_error>

namespace lg::cli {

namespace {

std::filesystem::path executable_dir()
{
  std::error_code error;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::filesystem::path() : exe.parent_path();
}

} // namespace

std::vector<std::filesystem::path> data_dirs(std::string_view kind)
{
  std::vector<std::filesystem::path> dirs;
  if (const char* override_dir = std::getenv("LAUNCHGUARD_DATA_DIR");
      override_dir != nullptr && *override_dir != '\0') {
    dirs.push_back(std::filesystem::path(override_dir) / kind);
  }
  if (const auto exe = executable_dir(); !exe.empty()) {
    dirs.push_back((exe / ".." / "share" / "launchguard" / kind).lexically_normal());
  }
#ifdef LG_SOURCE_DIR
  dirs.push_back(std::filesystem::path(LG_SOURCE_DIR) / kind);
#endif
  return dirs;
}

std::filesystem::path find_data_file(std::string_view kind, std::string_view name)
{
  std::vector<std::string> searched;
  for (const auto& dir : data_dirs(kind)) {
    const auto candidate = dir / name;
    std::error_code error;
    if (std::filesystem::is_regular_file(candidate, error)) {
      return candidate;
    }
    searched.push_back(dir.string());
  }
  InputError error("no {} file named {}", kind, std::string(name));
  error.hint = "searched " + join(searched, ", ") + " (set LAUNCHGUARD_DATA_DIR to add a directory)";
  throw error;
}

} // namespace lg::cli
