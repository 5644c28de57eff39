#include "cli/data_paths.hpp"

#include <unistd.h>

#include <cstdlib>
#include <system_error>

namespace lg::cli {

namespace fs = std::filesystem;

static fs::path executable_dir()
{
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : self.parent_path();
}

std::vector<fs::path> data_dirs()
{
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("LAUNCHGUARD_DATA_DIR"); env != nullptr && *env != '\0') {
    dirs.emplace_back(env);
  }
  if (const fs::path exe = executable_dir(); !exe.empty()) {
    dirs.push_back(exe.parent_path() / "share" / "launchguard");
  }
#ifdef LG_SOURCE_DIR
  dirs.emplace_back(LG_SOURCE_DIR);
#endif
  return dirs;
}

fs::path user_config_dir()
{
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg != nullptr && *xdg != '\0') {
    return fs::path(xdg) / "launchguard";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / ".config" / "launchguard";
  }
  return {};
}

fs::path find_data_file(std::string_view kind, std::string_view name)
{
  for (const auto& root : data_dirs()) {
    const fs::path candidate = root / kind / name;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) {
      return candidate;
    }
  }
  return {};
}

std::vector<fs::path> preset_dirs(const std::vector<fs::path>& extra)
{
  std::vector<fs::path> dirs;
  for (const auto& root : data_dirs()) {
    dirs.push_back(root / "presets");
  }
  if (const fs::path user = user_config_dir(); !user.empty()) {
    dirs.push_back(user / "presets");
  }
  dirs.insert(dirs.end(), extra.begin(), extra.end());
  return dirs;
}

} // namespace lg::cli
