#include "watch/flight_recorder_dumps.hpp"

#include <algorithm>
#include <set>
#include <system_error>

namespace lg::watch {

namespace fs = std::filesystem;

namespace {

bool is_dump_digit(char c)
{
  return c >= '0' && c <= '9';
}

// The rank after `prefix` in `name`, or -1.
long dump_rank(const std::string& name, const std::string& prefix)
{
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) {
    return -1;
  }
  long rank = 0;
  std::size_t at = prefix.size();
  for (; at < name.size() && is_dump_digit(name[at]) && at - prefix.size() < 9; ++at) {
    rank = rank * 10 + (name[at] - '0');
  }
  return at == prefix.size() ? -1 : rank;
}

// `text` with each "%j" replaced by `job_id`.
std::string with_job_id(const std::string& text, const std::string& job_id)
{
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "%j") == 0) {
      out += job_id;
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

// The runs of digits in the log files' names: the job ids Slurm's %j may
// have written there.
std::vector<std::string> job_ids_in_names(const std::vector<fs::path>& log_files)
{
  std::set<std::string> ids;
  for (const auto& file : log_files) {
    const std::string name = file.filename().string();
    for (std::size_t at = 0; at < name.size();) {
      if (!is_dump_digit(name[at])) {
        ++at;
        continue;
      }
      const std::size_t start = at;
      while (at < name.size() && is_dump_digit(name[at])) {
        ++at;
      }
      ids.insert(name.substr(start, at - start));
    }
  }
  return {ids.begin(), ids.end()};
}

std::vector<fs::path> dumps_with_prefix(const std::vector<fs::path>& log_files, const std::string& dump_prefix)
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

}  // namespace

std::vector<fs::path> flight_recorder_dumps(const std::vector<fs::path>& log_files, const std::string& dump_prefix,
                                            const std::string& job_id)
{
  if (dump_prefix.find("%j") == std::string::npos) {
    return dumps_with_prefix(log_files, dump_prefix);
  }
  if (!job_id.empty()) {
    return dumps_with_prefix(log_files, with_job_id(dump_prefix, job_id));
  }
  for (const auto& id : job_ids_in_names(log_files)) {
    auto found = dumps_with_prefix(log_files, with_job_id(dump_prefix, id));
    if (!found.empty()) {
      return found;
    }
  }
  return {};
}

std::string flight_recorder_file_prefix(const fs::path& dump)
{
  std::string name = dump.filename().string();
  while (!name.empty() && is_dump_digit(name.back())) {
    name.pop_back();
  }
  return name;
}

} // namespace lg::watch
