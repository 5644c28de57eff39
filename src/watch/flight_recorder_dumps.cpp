#include "watch/flight_recorder_dumps.hpp"

#include <algorithm>
#include <set>
#include <system_error>

namespace lg::watch {

namespace fs = std::filesystem;

namespace {

// The rank after `prefix` in `name`, or -1.
long dump_rank(const std::string& name, const std::string& prefix)
{
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) {
    return -1;
  }
  long rank = 0;
  std::size_t at = prefix.size();
  for (; at < name.size() && name[at] >= '0' && name[at] <= '9' && at - prefix.size() < 9; ++at) {
    rank = rank * 10 + (name[at] - '0');
  }
  return at == prefix.size() ? -1 : rank;
}

} // namespace

std::vector<fs::path> flight_recorder_dumps(const std::vector<fs::path>& log_files, const std::string& dump_prefix)
{
  const fs::path prefix_path(dump_prefix.empty() ? std::string("nccl_trace_rank_") : dump_prefix);
  const std::string file_prefix = prefix_path.filename().string();
  std::set<fs::path> dirs;
  for (const auto& file : log_files) {
    dirs.insert(file.parent_path().empty() ? fs::path(".") : file.parent_path());
  }
  if (!dump_prefix.empty()) {
    dirs.insert(prefix_path.parent_path().empty() ? fs::path(".") : prefix_path.parent_path());
  }
  std::vector<std::pair<long, fs::path>> found;
  for (const auto& dir : dirs) {
    std::error_code error;
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
      const long rank = dump_rank(it->path().filename().string(), file_prefix);
      if (rank >= 0 && it->is_regular_file(error)) {
        found.emplace_back(rank, it->path());
      }
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> out;
  for (auto& [rank, path] : found) {
    out.push_back(std::move(path));
  }
  return out;
}

} // namespace lg::watch
