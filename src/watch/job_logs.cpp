#include "watch/job_logs.hpp"

#include <algorithm>

namespace lg::watch {

namespace fs = std::filesystem;

namespace {

// Match `name` against `glob` where '\x01' stands for "any characters".
bool glob_match(const std::string& glob, const std::string& name)
{
  std::size_t g = 0;
  std::size_t n = 0;
  std::size_t star = std::string::npos;
  std::size_t mark = 0;
  while (n < name.size()) {
    if (g < glob.size() && glob[g] == '\x01') {
      star = g++;
      mark = n;
    } else if (g < glob.size() && glob[g] == name[n]) {
      ++g;
      ++n;
    } else if (star != std::string::npos) {
      g = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '\x01') {
    ++g;
  }
  return g == glob.size();
}

std::string expand(const std::string& pattern, const std::string& job_name, const std::string& job_id)
{
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 >= pattern.size()) {
      out += pattern[i];
      continue;
    }
    const char code = pattern[++i];
    if (code == 'x') {
      out += job_name;
    } else if (code == 'j' || code == 'J' || code == 'A') {
      out += job_id;
    } else if (code == '%') {
      out += '%';
    } else {
      out += '\x01';  // %t, %n, %N, %u, … : any
    }
  }
  return out;
}

} // namespace

std::vector<fs::path> job_log_files(const std::string& pattern,
                                    const std::string& job_name,
                                    const std::string& job_id,
                                    const fs::path& base)
{
  const std::string expanded = expand(pattern.empty() ? "slurm-%j.out" : pattern, job_name, job_id);
  fs::path path(expanded);
  if (path.is_relative()) {
    path = base / path;
  }
  std::vector<fs::path> out;
  const std::string leaf = path.filename().string();
  if (leaf.find('\x01') == std::string::npos) {
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) {
      out.push_back(path);
    }
    return out;
  }
  std::error_code ec;
  for (fs::directory_iterator it(path.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && glob_match(leaf, it->path().filename().string())) {
      out.push_back(it->path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace lg::watch
