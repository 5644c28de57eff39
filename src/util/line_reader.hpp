// Lines of an input read in blocks (JSON lines on standard input, say):
// memory is bounded by the longest line allowed, whatever the input's size,
// and a line over the limit is reported and skipped, not fatal.
#pragma once

#include "util/input.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace lg {

inline constexpr std::size_t k_max_line_bytes = k_max_job_bytes;  // one job per JSON line

struct InputLine
{
  std::size_t number = 0;  // 1-based
  std::string text;        // without the '\n' (and a '\r' before it)
  bool too_long = false;   // over the limit: `text` is empty, the line was skipped
};

class LineReader
{
public:
  // Read lines of `input` (kept by reference) of at most `max_bytes` each.
  explicit LineReader(InputFile& input, std::size_t max_bytes = k_max_line_bytes);

  // The next line, or nullopt at the end. A last line without '\n' counts.
  // Throws InputError when the read fails.
  std::optional<InputLine> next();

private:
  bool fill();

  InputFile& m_input;
  std::size_t m_max;
  std::vector<char> m_block;
  std::size_t m_at = 0;
  std::size_t m_end = 0;
  std::size_t m_number = 0;
  bool m_eof = false;
};

} // namespace lg
