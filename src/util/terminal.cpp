#include "util/terminal.hpp"

#include <fmt/format.h>

namespace lg {

namespace {

// Return the length of the valid UTF-8 sequence at `at` (2-4) and its code
// point, or 0 when the bytes there are not one.
std::size_t utf8_sequence(std::string_view text, std::size_t at, char32_t& code)
{
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    code = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    code = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    code = lead & 0x07;
  } else {
    return 0;
  }
  if (at + length > text.size()) {
    return 0;
  }
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) {
      return 0;
    }
    code = (code << 6) | (byte(i) & 0x3F);
  }
  const bool overlong = (length == 3 && code < 0x800) || (length == 4 && code < 0x10000);
  const bool surrogate = code >= 0xD800 && code <= 0xDFFF;
  return overlong || surrogate || code > 0x10FFFF ? 0 : length;
}

bool hidden_code_point(char32_t code)
{
  return (code >= 0x80 && code <= 0x9F) || (code >= 0x202A && code <= 0x202E) || (code >= 0x2066 && code <= 0x2069);
}

} // namespace

std::string printable(std::string_view text)
{
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const auto c = static_cast<unsigned char>(text[at]);
    if (c >= 0x20 && c < 0x7F) {
      out.push_back(static_cast<char>(c));
      ++at;
      continue;
    }
    if (c == '\t' || c == '\n') {
      out.push_back(static_cast<char>(c));
      ++at;
      continue;
    }
    char32_t code = 0;
    const std::size_t length = c >= 0x80 ? utf8_sequence(text, at, code) : 0;
    if (length == 0) {
      out += fmt::format("\\x{:02x}", c);
      ++at;
    } else if (hidden_code_point(code)) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(code));
      at += length;
    } else {
      out.append(text.substr(at, length));
      at += length;
    }
  }
  return out;
}

} // namespace lg
