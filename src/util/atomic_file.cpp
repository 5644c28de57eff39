#include "util/atomic_file.hpp"

#include "util/error.hpp"
#include "util/fault.hpp"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace lg {

namespace {

constexpr int k_max_link_hops = 40;  // the kernel's own limit (MAXSYMLINKS)

std::string directory_of(const std::string& path)
{
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) {
    return ".";
  }
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path)
{
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

[[noreturn]] void fail(const char* what, const std::string& path, int error_number)
{
  SystemError error("cannot {} '{}': {}", what, path, std::strerror(error_number));
  if (error_number == ENOSPC || error_number == EDQUOT) {
    error.hint = "the file system is full (or over quota); free space and retry. The file was left unchanged";
  } else if (error_number == EROFS) {
    error.hint = "the file system is read-only; write the result elsewhere";
  } else if (error_number == EACCES || error_number == EPERM) {
    error.hint = "the directory must be writable to replace a file in it atomically";
  } else {
    error.hint = "the file was left unchanged";
  }
  throw error;
}

// Follow symlinks to the file the bytes belong in (which may not exist yet).
std::string final_target(const std::string& path)
{
  std::string current = path;
  for (int hop = 0; hop < k_max_link_hops; ++hop) {
    struct stat st{};
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
      return current;
    }
    char buffer[PATH_MAX];
    const ssize_t n = ::readlink(current.c_str(), buffer, sizeof buffer - 1);
    if (n < 0) {
      fail("read the link", current, errno);
    }
    const std::string link(buffer, static_cast<std::size_t>(n));
    current = link.starts_with('/') ? link : directory_of(current) + "/" + link;
  }
  InputError error("cannot write '{}': too many levels of symbolic links", path);
  error.hint = "the link points to itself through other links; point it at a file";
  throw error;
}

mode_t default_mode()
{
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return static_cast<mode_t>(0666 & ~mask);
}

// Removes the temporary file unless released (after the rename).
class TempFile
{
public:
  TempFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile()
  {
    if (fd_ >= 0) {
      ::close(fd_);
    }
    if (!released_) {
      ::unlink(path_.c_str());
    }
  }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  void close_fd(const std::string& target)
  {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) {
      fail("write", target, errno);
    }
  }
  void release() { released_ = true; }

private:
  std::string path_;
  int fd_;
  bool released_ = false;
};

void keep_attributes(int fd, const struct stat* existing, const AtomicWriteOptions& options, const std::string& target)
{
  mode_t mode = options.mode.value_or(default_mode());
  if (existing != nullptr && !options.force_mode) {
    mode = existing->st_mode & 07777;
  }
  if (::fchmod(fd, mode) != 0) {
    fail("set the mode of", target, errno);
  }
  if (existing != nullptr && (existing->st_uid != ::geteuid() || existing->st_gid != ::getegid())) {
    if (::fchown(fd, existing->st_uid, existing->st_gid) != 0) {
      // Another user's file in a directory we may write: replacing it would
      // change its owner, so refuse instead.
      SystemError error("cannot keep the owner of '{}': {}", target, std::strerror(errno));
      error.hint = "the file belongs to another user or group; write the result to a new file";
      throw error;
    }
  }
}

} // namespace

void write_file_atomically(const std::string& path, std::string_view bytes, const AtomicWriteOptions& options)
{
  const std::string target = final_target(path);
  struct stat st{};
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    InputError error("cannot write '{}': not a regular file", path);
    error.hint = "name a file, not a directory, FIFO or device";
    throw error;
  }
  const std::string dir = directory_of(target);
  std::string pattern = dir + "/." + base_of(target) + ".lg-XXXXXX";
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) {
    fail("create a temporary file next to", target, errno);
  }
  TempFile temp(pattern, fd);
  keep_attributes(temp.fd(), exists ? &st : nullptr, options, target);
  if (const int error_number = write_and_sync(temp.fd(), bytes); error_number != 0) {
    fail("write", target, error_number);
  }
  temp.close_fd(target);
  fault_point("atomic_write_before_rename");
  if (::rename(temp.path().c_str(), target.c_str()) != 0) {
    fail("replace", target, errno);
  }
  temp.release();
  sync_directory(dir);
}

int write_and_sync(int fd, std::string_view bytes)
{
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return n < 0 ? errno : ENOSPC;
    }
    done += static_cast<std::size_t>(n);
  }
  return ::fsync(fd) != 0 ? errno : 0;
}

void sync_directory(const std::string& dir)
{
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

} // namespace lg
