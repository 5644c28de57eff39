// Reading what the user names: every file launchguard reads (job, script,
// catalogue, template, log, journal record) is opened here. Only regular
// files are read (a directory, FIFO or device is refused, so nothing blocks
// or grows without end), whole reads are capped, and every failure to open
// (no such file, permission, a symlink loop, a path too long) is an
// InputError (exit 2) that names the file.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace lg {

// Size caps for whole-file reads.
inline constexpr std::size_t k_max_job_bytes = 16u << 20;     // job TOML, preset, catalogue
inline constexpr std::size_t k_max_script_bytes = 16u << 20;  // sbatch script, template
inline constexpr std::size_t k_max_record_bytes = 16u << 20;  // one journal record

// An open input, read in blocks: a regular file, or standard input when the
// path is "-" (which may be a pipe). Move-only; closes on destruction.
class InputFile
{
public:
  // Open `path`; `what` names it in messages ("job file", "log"). Throws
  // InputError when it cannot be opened or is not a regular file.
  InputFile(const std::string& path, std::string_view what);
  ~InputFile();
  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // Read up to `size` bytes into `buffer`; return 0 at the end. Throws
  // InputError when the read fails (EIO, a file that became a directory).
  std::size_t read(char* buffer, std::size_t size);

  // Read until `buffer` is full or the end; return the bytes read.
  std::size_t read_full(char* buffer, std::size_t size);

  // The name for messages: the path, or "<stdin>".
  const std::string& name() const { return m_name; }

private:
  int m_fd = -1;
  bool m_owned = false;
  std::string m_name;
  std::string m_what;
};

// Return the whole of `path` ("-": standard input). Throws InputError as
// InputFile does, and when the input is larger than `max_bytes`.
std::string read_file(const std::string& path, std::string_view what, std::size_t max_bytes);

// Return the message for errno `code` when opening a file failed, in words a
// user can act on ("no such file", "a symlink loop").
std::string open_failure(int code);

} // namespace lg
