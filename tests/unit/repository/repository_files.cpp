#include "repository/repository_files.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace lg::testing {

namespace fs = std::filesystem;

fs::path source_dir()
{
  if (const char* dir = std::getenv("LG_SOURCE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  return LG_SOURCE_DIR;
}

namespace {

// A build tree or a VCS directory: not project files.
bool skipped(const fs::path& relative)
{
  const std::string first = relative.begin()->string();
  return first == ".git" || first.starts_with("build") || first == ".cache" || first == "generated";
}

} // namespace

std::vector<fs::path> project_files()
{
  std::vector<fs::path> files;
  const fs::path root = source_dir();
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
       it != end; it.increment(ec)) {
    const fs::path relative = fs::relative(it->path(), root, ec);
    if (skipped(relative)) {
      if (it->is_directory(ec)) {
        it.disable_recursion_pending();
      }
      continue;
    }
    if (it->is_regular_file(ec)) {
      files.push_back(relative);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string project_text(const fs::path& path)
{
  std::ifstream in(source_dir() / path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

} // namespace lg::testing
