#include "util/strings.hpp"

namespace lg {

std::vector<std::string> split(std::string_view text, char separator)
{
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    if (end == std::string_view::npos) {
      out.emplace_back(text.substr(start));
      return out;
    }
    out.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
}

std::string_view trim(std::string_view text)
{
  const char* ws = " \t\r\n\f\v";
  const std::size_t begin = text.find_first_not_of(ws);
  if (begin == std::string_view::npos) {
    return {};
  }
  const std::size_t end = text.find_last_not_of(ws);
  return text.substr(begin, end - begin + 1);
}

std::string join(const std::vector<std::string>& parts, std::string_view separator)
{
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      out += separator;
    }
    out += parts[i];
  }
  return out;
}

static bool is_safe_shell_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
         || c == '_' || c == '-' || c == '.' || c == '/' || c == ':' || c == ','
         || c == '=' || c == '+' || c == '@' || c == '%';
}

std::string shell_quote(std::string_view word)
{
  bool safe = !word.empty();
  for (char c : word) {
    if (!is_safe_shell_char(c)) {
      safe = false;
      break;
    }
  }
  if (safe) {
    return std::string(word);
  }
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += "'";
  return out;
}

} // namespace lg
