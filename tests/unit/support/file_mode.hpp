// The permission bits of a file (07777), or 0 when it cannot be stat'ed.
#pragma once

#include <sys/stat.h>

#include <filesystem>

namespace lg::testing {

inline unsigned file_mode(const std::filesystem::path& path)
{
  struct stat info{};
  if (::stat(path.c_str(), &info) != 0) {
    return 0;
  }
  return info.st_mode & 07777U;
}

} // namespace lg::testing
