// Following log files by offset, as lnav does: each poll reads only what was
// appended since the last one. A file that does not exist yet is normal (the
// job may still be pending); a file that shrank was truncated or replaced, so
// reading restarts at 0; a deleted file keeps what was already read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace lg::watch {

struct LogLine
{
  std::string file;  // path as given
  int line = 0;      // 1-based line number in that file (counting from the last restart)
  std::string text;
};

class LogTail
{
public:
  // Read at most `max_bytes` of new complete lines from `path`. A final line
  // without '\n' is held back until it is completed (or `flush` is set).
  std::vector<LogLine> poll(const std::filesystem::path& path, bool flush = false,
                            std::size_t max_bytes = 64u << 20);

  // Total bytes consumed from `path` so far.
  std::uint64_t offset(const std::filesystem::path& path) const;

  // Number of times a file was seen to shrink (truncation / replacement).
  int restarts() const { return m_restarts; }

private:
  struct FileState
  {
    std::uint64_t offset = 0;
    std::uint64_t inode = 0;
    int lines = 0;
    std::string partial;
  };
  std::map<std::string, FileState> m_files;
  int m_restarts = 0;
};

} // namespace lg::watch
