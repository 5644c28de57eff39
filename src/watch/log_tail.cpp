#include "watch/log_tail.hpp"

#include <sys/stat.h>

#include <fstream>

namespace lg::watch {

std::vector<LogLine> LogTail::poll(const std::filesystem::path& path, bool flush, std::size_t max_bytes)
{
  std::vector<LogLine> out;
  const std::string key = path.string();
  struct stat info{};
  if (::stat(path.c_str(), &info) != 0) {
    return out;  // not there (yet, or any more)
  }
  FileState& state = m_files[key];
  const auto size = static_cast<std::uint64_t>(info.st_size);
  const auto inode = static_cast<std::uint64_t>(info.st_ino);
  if (size < state.offset || (state.inode != 0 && inode != state.inode)) {
    // Truncated or replaced: start over rather than read garbage or stall.
    state = FileState{};
    ++m_restarts;
  }
  state.inode = inode;
  if (size == state.offset && !(flush && !state.partial.empty())) {
    return out;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return out;
  }
  in.seekg(static_cast<std::streamoff>(state.offset));
  const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(size - state.offset, max_bytes));
  std::string chunk(want, '\0');
  in.read(chunk.data(), static_cast<std::streamsize>(want));
  chunk.resize(static_cast<std::size_t>(in.gcount()));
  state.offset += chunk.size();
  std::string data = std::move(state.partial);
  data += chunk;
  state.partial.clear();
  std::size_t start = 0;
  while (true) {
    const std::size_t end = data.find('\n', start);
    if (end == std::string::npos) {
      break;
    }
    std::string text = data.substr(start, end - start);
    if (!text.empty() && text.back() == '\r') {
      text.pop_back();
    }
    out.push_back(LogLine{key, ++state.lines, std::move(text)});
    start = end + 1;
  }
  state.partial = data.substr(start);
  if (flush && !state.partial.empty()) {
    out.push_back(LogLine{key, ++state.lines, std::move(state.partial)});
    state.partial.clear();
  }
  return out;
}

std::uint64_t LogTail::offset(const std::filesystem::path& path) const
{
  const auto it = m_files.find(path.string());
  return it == m_files.end() ? 0 : it->second.offset;
}

} // namespace lg::watch
