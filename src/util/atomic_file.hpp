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

// Write all of `bytes` to the open file `fd` (a short write or EINTR is
// retried) and fsync it, so the bytes are on disk before the file is
// published by rename(2) or link(2). Returns 0, or the errno of the write or
// fsync that failed (ENOSPC for a write that wrote nothing), for the caller's
// own error; `fd` stays open.
int write_and_sync(int fd, std::string_view bytes);

// fsync the directory `dir`, so a rename(2) or link(2) in it survives a crash.
// Errors are ignored: some file systems cannot sync a directory.
void sync_directory(const std::string& dir);

} // namespace lg
