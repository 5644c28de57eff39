#include "util/private_files.hpp"

#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace lg::private_files {

namespace fs = std::filesystem;

[[noreturn]] void throw_errno(const std::string& what, const fs::path& path)
{
  const int error_number = errno;
  SystemError error("{} '{}': {}", what, path.string(), std::strerror(error_number));
  if (error_number == ENOSPC || error_number == EDQUOT) {
    error.hint = "the state directory's file system is full; free space or use --state-dir";
  }
  throw error;
}

namespace {

[[noreturn]] void refuse(const fs::path& path, std::string_view what, const std::string& problem,
                         const std::string& fix)
{
  InputError error("refusing {} '{}': {}", what, path.string(), problem);
  error.hint = fix + " (another user who can write it decides what launchguard submits under your account)";
  throw error;
}

} // namespace

void require_private(const fs::path& path, std::string_view what)
{
  struct stat link{};
  if (::lstat(path.c_str(), &link) != 0) {
    return;  // not there: nothing to trust yet
  }
  const uid_t me = ::geteuid();
  struct stat info = link;
  if (S_ISLNK(link.st_mode)) {
    if (link.st_uid != me) {
      refuse(path, what, fmt::format("it is a symbolic link owned by uid {}", link.st_uid),
             "remove the link, or point --state-dir at a directory of your own");
    }
    if (::stat(path.c_str(), &info) != 0) {
      return;  // dangling: creating through it fails with a clear error later
    }
  }
  if (info.st_uid != me) {
    refuse(path, what, fmt::format("it is owned by uid {}, not by you (uid {})", info.st_uid, me),
           "use a state directory of your own (--state-dir or XDG_STATE_HOME)");
  }
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    refuse(path, what, fmt::format("it is writable by {} (mode {:04o})",
                                   (info.st_mode & S_IWOTH) != 0 ? "everyone" : "its group", info.st_mode & 07777),
           fmt::format("chmod go-w '{}'", path.string()));
  }
}

void make_private_dir(const fs::path& dir, std::string_view what)
{
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    if (!dir.parent_path().empty() && dir.parent_path() != dir) {
      fs::path parent = dir.parent_path();
      if (!fs::exists(parent, ec)) {
        make_private_dir(parent, "the parent directory");
      }
    }
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      throw_errno(fmt::format("cannot create {}", what), dir);
    }
  }
  require_private(dir, what);
}

void write_new_file(const fs::path& path, std::string_view content)
{
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw_errno("cannot create", path);
  }
  if (const int error_number = write_and_sync(fd, content); error_number != 0) {
    ::close(fd);
    ::unlink(path.c_str());
    errno = error_number;
    throw_errno("cannot write", path);
  }
  ::close(fd);
}

void sync_dir(const fs::path& dir)
{
  sync_directory(dir.string());
}

std::string unique_name()
{
  static std::mt19937_64 rng{std::random_device{}()};
  return std::to_string(::getpid()) + "-" + std::to_string(rng());
}

void replace_file(const fs::path& path, std::string_view content)
{
  AtomicWriteOptions options;
  options.mode = 0600;
  options.force_mode = true;
  write_file_atomically(path.string(), content, options);
}

namespace {

// "host pid" of this process, the content of a lock it holds.
std::string holder_text()
{
  return process::host_name() + " " + std::to_string(::getpid()) + "\n";
}

} // namespace

bool take_lock(const fs::path& path, std::chrono::seconds stale_after)
{
  const std::string mine = holder_text();
  const std::string host = process::host_name();
  for (int tries = 0; tries < 3; ++tries) {
    const fs::path temp = path.parent_path() / (".tmp-" + unique_name());
    write_new_file(temp, mine);
    const int rc = ::link(temp.c_str(), path.c_str());
    ::unlink(temp.c_str());
    if (rc == 0) {
      return true;
    }
    std::ifstream in(path);
    std::string holder_host;
    long pid = 0;
    if (!(in >> holder_host >> pid)) {
      return false;  // being written right now, or gone: ask again later
    }
    const bool same_host = holder_host == host;
    if (same_host && pid == ::getpid()) {
      return true;
    }
    std::error_code ec;
    const auto age = fs::file_time_type::clock::now() - fs::last_write_time(path, ec);
    const bool dead = same_host && pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
    if (!dead && (ec || age < stale_after)) {
      return false;
    }
    // Stale: move it aside (only one of several stealers can) and retry.
    const fs::path aside = path.parent_path() / (".stale-" + unique_name());
    if (::rename(path.c_str(), aside.c_str()) == 0) {
      ::unlink(aside.c_str());
    }
  }
  return false;
}

void release_lock(const fs::path& path)
{
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (text.str() == holder_text()) {
    ::unlink(path.c_str());
  }
}

} // namespace lg::private_files
