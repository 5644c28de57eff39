#include "util/input.hpp"

#include "util/bytes.hpp"
#include "util/error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace lg {

namespace {

const char* kind_of(mode_t mode)
{
  if (S_ISDIR(mode)) {
    return "a directory";
  }
  if (S_ISFIFO(mode)) {
    return "a FIFO (named pipe)";
  }
  if (S_ISCHR(mode)) {
    return "a character device";
  }
  if (S_ISBLK(mode)) {
    return "a block device";
  }
  if (S_ISSOCK(mode)) {
    return "a socket";
  }
  return "not a regular file";
}

} // namespace

std::string open_failure(int code)
{
  switch (code) {
  case ENOENT:
    return "no such file";
  case EACCES:
  case EPERM:
    return "permission denied";
  case ELOOP:
    return "too many levels of symbolic links (a symlink loop?)";
  case ENAMETOOLONG:
    return "the path is too long";
  case ENOTDIR:
    return "a component of the path is not a directory";
  default:
    return std::strerror(code);
  }
}

InputFile::InputFile(const std::string& path, std::string_view what)
  : m_name(path == "-" ? "<stdin>" : path),
    m_what(what)
{
  if (path == "-") {
    m_fd = STDIN_FILENO;
    struct stat info{};
    if (::fstat(m_fd, &info) == 0 && S_ISDIR(info.st_mode)) {
      InputError error("cannot read {} from standard input: it is a directory", m_what);
      error.hint = "redirect a file into it, e.g. < logs/job-1234.out";
      throw error;
    }
    return;
  }
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (m_fd < 0) {
    const int code = errno;
    InputError error("cannot read {} '{}': {}", m_what, path, open_failure(code));
    error.hint = "check the path";
    throw error;
  }
  m_owned = true;
  struct stat info{};
  const bool known = ::fstat(m_fd, &info) == 0;
  if (!known || !S_ISREG(info.st_mode)) {
    const char* kind = known ? kind_of(info.st_mode) : "not readable";
    ::close(m_fd);
    m_fd = -1;
    InputError error("cannot read {} '{}': it is {}, not a regular file", m_what, path, kind);
    error.hint = known && S_ISDIR(info.st_mode) ? "name the files inside it (e.g. dir/*.out)"
                                       : "give a regular file, or '-' to read standard input";
    throw error;
  }
  ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) & ~O_NONBLOCK);
}

InputFile::~InputFile()
{
  if (m_owned && m_fd >= 0) {
    ::close(m_fd);
  }
}

InputFile::InputFile(InputFile&& other) noexcept
  : m_fd(std::exchange(other.m_fd, -1)),
    m_owned(std::exchange(other.m_owned, false)),
    m_name(std::move(other.m_name)),
    m_what(std::move(other.m_what))
{
}

InputFile& InputFile::operator=(InputFile&& other) noexcept
{
  if (this != &other) {
    if (m_owned && m_fd >= 0) {
      ::close(m_fd);
    }
    m_fd = std::exchange(other.m_fd, -1);
    m_owned = std::exchange(other.m_owned, false);
    m_name = std::move(other.m_name);
    m_what = std::move(other.m_what);
  }
  return *this;
}

std::size_t InputFile::read(char* buffer, std::size_t size)
{
  for (;;) {
    const ssize_t got = ::read(m_fd, buffer, size);
    if (got >= 0) {
      return static_cast<std::size_t>(got);
    }
    if (errno != EINTR) {
      const int code = errno;
      InputError error("cannot read {} '{}': {}", m_what, m_name, std::strerror(code));
      error.hint = "check that it is a readable file";
      throw error;
    }
  }
}

std::size_t InputFile::read_full(char* buffer, std::size_t size)
{
  std::size_t filled = 0;
  while (filled < size) {
    const std::size_t got = read(buffer + filled, size - filled);
    if (got == 0) {
      break;
    }
    filled += got;
  }
  return filled;
}

std::string read_file(const std::string& path, std::string_view what, std::size_t max_bytes)
{
  InputFile in(path, what);
  std::string text;
  constexpr std::size_t k_chunk = 64u << 10;
  for (;;) {
    const std::size_t old = text.size();
    text.resize(old + k_chunk);
    const std::size_t got = in.read(text.data() + old, k_chunk);
    text.resize(old + got);
    if (got == 0) {
      return text;
    }
    if (text.size() > max_bytes) {
      InputError error("{} '{}' is larger than {}, the most launchguard reads for one", what, in.name(),
                       format_bytes(static_cast<double>(max_bytes)));
      error.hint = "give the file itself, not a device or a stream that does not end";
      throw error;
    }
  }
}

} // namespace lg
