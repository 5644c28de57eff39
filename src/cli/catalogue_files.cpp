#include "cli/catalogue_files.hpp"

#include "cli/data_paths.hpp"
#include "util/error.hpp"
#include "util/input.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>

namespace lg::cli {

namespace fs = std::filesystem;

std::string read_text(const std::string& path, std::string_view what)
{
  return read_file(path, what, what == "log" ? SIZE_MAX : k_max_job_bytes);
}

static void add_file(diagnose::Catalogue& catalogue, const fs::path& path)
{
  diagnose::merge_catalogue(catalogue, diagnose::parse_catalogue(read_text(path.string(), "catalogue"), path.string()));
}

diagnose::Catalogue load_catalogue(const std::vector<std::string>& extra)
{
  const fs::path shipped = find_data_file("signatures", "default.toml");
  diagnose::Catalogue catalogue =
    shipped.empty() ? diagnose::default_catalogue()
                    : diagnose::parse_catalogue(read_text(shipped.string(), "catalogue"), shipped.string());
  const fs::path user_dir = user_config_dir() / "signatures";
  std::error_code ignored;
  if (fs::is_directory(user_dir, ignored)) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(user_dir)) {
      if (entry.path().extension() == ".toml") {
        files.push_back(entry.path());
      }
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      add_file(catalogue, file);
    }
  }
  for (const auto& file : extra) {
    add_file(catalogue, file);
  }
  return catalogue;
}

} // namespace lg::cli
