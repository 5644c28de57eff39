// Data lookup for the CLI. An installed binary reads P/share/launchguard
// (found from /proc/self/exe, so the prefix can move) and never the source
// tree it was built from, which may have changed or gone since. A binary
// copied alone (the LG_STATIC build on a login node) finds no data directory
// at all; it then writes the data built into it to a cache directory once and
// reads that, so every path-based lookup (presets, templates, signatures)
// works unchanged.
#include "cli/data_paths.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <system_error>

namespace lg::cli {

namespace fs = std::filesystem;

static fs::path executable_dir()
{
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : self.parent_path();
}

static bool is_existing_directory(const fs::path& path)
{
  std::error_code ec;
  return fs::is_directory(path, ec);
}

static const char* non_empty_env(const char* name)
{
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

std::vector<fs::path> data_dirs()
{
  std::vector<fs::path> dirs;
  if (const char* env = non_empty_env("LAUNCHGUARD_DATA_DIR")) {
    dirs.emplace_back(env);
  }
  bool installed = false;
  if (const fs::path exe = executable_dir(); !exe.empty()) {
    const fs::path share = exe.parent_path() / "share" / "launchguard";
    installed = is_existing_directory(share);
    dirs.push_back(share);
  }
#ifdef LG_SOURCE_DIR
  if (!installed) {
    dirs.emplace_back(LG_SOURCE_DIR);
  }
#endif
  bool any = false;
  for (const auto& dir : dirs) {
    any = any || is_existing_directory(dir);
  }
  if (!any) {
    if (fs::path embedded = embedded_data_dir(); !embedded.empty()) {
      dirs.push_back(std::move(embedded));
    }
  }
  return dirs;
}

fs::path user_config_dir()
{
  if (const char* xdg = non_empty_env("XDG_CONFIG_HOME")) {
    return fs::path(xdg) / "launchguard";
  }
  if (const char* home = non_empty_env("HOME")) {
    return fs::path(home) / ".config" / "launchguard";
  }
  return {};
}

// $XDG_CACHE_HOME/launchguard, ~/.cache/launchguard, or a directory in
// $TMPDIR (/tmp) that only this user can write: created 0700 and checked to
// be ours and not a link, as anyone can create names in /tmp.
static fs::path cache_dir()
{
  if (const char* xdg = non_empty_env("XDG_CACHE_HOME")) {
    return fs::path(xdg) / "launchguard";
  }
  if (const char* home = non_empty_env("HOME")) {
    return fs::path(home) / ".cache" / "launchguard";
  }
  const char* tmp = non_empty_env("TMPDIR");
  const fs::path dir = fs::path(tmp != nullptr ? tmp : "/tmp") / ("launchguard-" + std::to_string(geteuid()));
  ::mkdir(dir.c_str(), 0700);
  struct stat info = {};
  if (::lstat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != geteuid()
      || (info.st_mode & 0077) != 0) {
    return {};
  }
  return dir;
}

static std::string contents_hash()
{
  std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a over paths and bytes
  const auto add = [&hash](std::string_view bytes) {
    for (const char c : bytes) {
      hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    }
    hash = (hash ^ 0xffU) * 1099511628211ULL;
  };
  for (const auto& file : embedded_data()) {
    add(file.path);
    add(file.text);
  }
  static const char digits[] = "0123456789abcdef";
  std::string text;
  for (int shift = 60; shift >= 0; shift -= 4) {
    text += digits[(hash >> shift) & 0xfU];
  }
  return text;
}

// Write every embedded file under a fresh `staging` directory, then rename it
// to `target` in one step, so a reader never sees half the files (two
// processes racing both write, one rename wins).
static bool write_embedded_data(const fs::path& staging)
{
  std::error_code ec;
  for (const auto& file : embedded_data()) {
    const fs::path path = staging / fs::path(file.path);
    fs::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::binary);
    out.write(file.text.data(), static_cast<std::streamsize>(file.text.size()));
    if (ec || !out.flush()) {
      return false;
    }
  }
  return true;
}

static fs::path extract_embedded_data()
{
  if (embedded_data().empty()) {
    return {};
  }
  const fs::path base = cache_dir();
  if (base.empty()) {
    return {};
  }
  const fs::path target = base / ("data-" + contents_hash());
  if (is_existing_directory(target)) {
    return target;
  }
  std::error_code ec;
  fs::create_directories(base, ec);
  const fs::path staging = base / (".data-" + std::to_string(getpid()) + ".tmp");
  fs::remove_all(staging, ec);
  if (write_embedded_data(staging)) {
    fs::rename(staging, target, ec);
  }
  fs::remove_all(staging, ec);
  return is_existing_directory(target) ? target : fs::path();
}

fs::path embedded_data_dir()
{
  static const fs::path dir = extract_embedded_data();
  return dir;
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

std::vector<fs::path> template_dirs()
{
  std::vector<fs::path> dirs;
  for (const auto& root : data_dirs()) {
    dirs.push_back(root / "templates");
  }
  return dirs;
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
