// A log read as a stream of its text: plain, gzip (every member of a
// concatenation, as zcat) or zstd (every frame), told apart by the first
// bytes. What it cannot read (bzip2, xz, lz4, zip, a cut compressed stream)
// is an InputError, never text that looks clean.
#pragma once

#include "util/input.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace lg {

class LogReader
{
public:
  // Open `path` ("-": standard input). Throws InputError as InputFile does,
  // and when the log is compressed in a format not read here.
  explicit LogReader(const std::string& path);
  ~LogReader();
  LogReader(LogReader&&) noexcept;
  LogReader& operator=(LogReader&&) noexcept;
  LogReader(const LogReader&) = delete;
  LogReader& operator=(const LogReader&) = delete;

  // Read up to `size` bytes of text; 0 at the end. Throws InputError when
  // the compressed data is damaged or cut short.
  std::size_t read(char* buffer, std::size_t size);

  const std::string& name() const;
  // "plain", "gzip" or "zstd".
  std::string_view format() const;

  struct Decoder;

private:
  std::unique_ptr<Decoder> m_decoder;
};

} // namespace lg
