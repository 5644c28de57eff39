// Files that only their user may touch: launchguard's state (run journals,
// the submitted scripts, the poll cache). Like ssh with ~/.ssh, a directory
// or file that another user owns or can write is refused, because whoever
// can write it decides what `watch` submits under your account; whatever
// launchguard creates is 0700 (directories) or 0600 (files). Locks are
// link(2) of a fresh file onto the lock's name, atomic on local file systems
// and on NFS (where flock and O_EXCL are not to be trusted).
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>

namespace lg::private_files {

// Throw SystemError "<what> '<path>': <strerror(errno)>", with a disk-full
// hint for ENOSPC/EDQUOT.
[[noreturn]] void throw_errno(const std::string& what, const std::filesystem::path& path);

// Refuse `path` (InputError, exit 2, naming it, its owner and mode, and the
// fix) unless it is owned by this user and neither group- nor
// other-writable. A symbolic link must itself be this user's and is judged
// by its target. A path that does not exist passes.
void require_private(const std::filesystem::path& path, std::string_view what);

// Create `dir` and any missing parents with mode 0700, then require_private
// on `dir`. Throws SystemError when it cannot be created (disk full, …).
void make_private_dir(const std::filesystem::path& dir, std::string_view what);

// Create the new file `path` (O_EXCL, mode 0600) with `content`, fsync'd.
// Throws SystemError (with a disk-full hint) and leaves nothing behind.
void write_new_file(const std::filesystem::path& path, std::string_view content);

// Replace `path` by `content` atomically: a 0600 temporary file in the same
// directory, fsync'd, renamed over it, the directory fsync'd.
void replace_file(const std::filesystem::path& path, std::string_view content);

// fsync a directory (after a link or rename in it); errors are ignored.
void sync_dir(const std::filesystem::path& dir);

// "<pid>-<random>": a name no other process picks for its temporary file.
std::string unique_name();

// Take the lock `path` for this process: true if it was free, is already
// ours, or is stale (its holder is a dead process on this host, or it is
// older than `stale_after`). Two processes on two hosts never both hold it.
bool take_lock(const std::filesystem::path& path, std::chrono::seconds stale_after);

// Give up a lock taken with take_lock (only if this process holds it).
void release_lock(const std::filesystem::path& path);

} // namespace lg::private_files
