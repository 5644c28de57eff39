#include "util/line_reader.hpp"

#include <algorithm>
#include <cstring>

namespace lg {

namespace {
constexpr std::size_t k_line_block_bytes = 1u << 16;
}

LineReader::LineReader(InputFile& input, std::size_t max_bytes)
  : m_input(input),
    m_max(max_bytes),
    m_block(k_line_block_bytes)
{
}

bool LineReader::fill()
{
  if (m_eof) {
    return false;
  }
  m_at = 0;
  m_end = m_input.read(m_block.data(), m_block.size());
  m_eof = m_end == 0;
  return !m_eof;
}

std::optional<InputLine> LineReader::next()
{
  InputLine line;
  bool any = false;
  while (true) {
    if (m_at == m_end && !fill()) {
      break;
    }
    any = true;
    const char* begin = m_block.data() + m_at;
    const auto* newline = static_cast<const char*>(std::memchr(begin, '\n', m_end - m_at));
    const std::size_t length = newline != nullptr ? static_cast<std::size_t>(newline - begin) : m_end - m_at;
    if (!line.too_long) {
      if (line.text.size() + length > m_max) {
        line.too_long = true;
        line.text = std::string();  // release what was kept
      } else {
        line.text.append(begin, length);
      }
    }
    m_at += length;
    if (newline != nullptr) {
      ++m_at;
      break;
    }
  }
  if (!any) {
    return std::nullopt;
  }
  if (!line.text.empty() && line.text.back() == '\r') {
    line.text.pop_back();
  }
  line.number = ++m_number;
  return line;
}

} // namespace lg
