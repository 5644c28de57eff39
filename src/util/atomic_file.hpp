// Replace a file's contents so that a reader, a crash or a full disk never
// sees a partial file: the bytes go to a temporary file in the same
// directory, are fsync'd, and the temporary is renamed over the target. The
// target keeps its mode bits and owner; a symlink keeps pointing where it did
// (its final target is the file replaced). Used by `audit --fix`, `render -o`
// and every other command that rewrites a user's file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace lg {

struct AtomicWriteOptions
{
  // Mode bits of a new file (default 0666 minus the umask). An existing
  // file keeps its own mode unless `force_mode` is set.
  std::optional<mode_t> mode;
  // Apply `mode` to an existing file too (0600 for a file holding secrets).
  bool force_mode = false;
};

// Write `bytes` to `path` atomically. Throws SystemError with the reason
// (and a hint for a full disk or a read-only file system) when the file
// cannot be written; the original file is then unchanged and no temporary
// is left behind. Throws InputError when `path` names something that is not
// a regular file (a directory, a FIFO, a symlink loop).
void write_file_atomically(const std::string& path, std::string_view bytes, const AtomicWriteOptions& options = {});

} // namespace lg
