// Writing values into #SBATCH lines. sbatch reads these lines itself
// (src/sbatch/opt.c _get_argument): whitespace separates arguments, ' and "
// group, a backslash escapes the next character, an unescaped # starts a
// comment. No shell expansion happens, so $(…) and backticks are inert here;
// the dangers are a newline (ends the directive, the rest becomes a script
// line) and a # or space that silently truncates the value.
#include "render/render.hpp"

#include "util/error.hpp"

namespace lg::render {

namespace {

bool is_portable(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
         || c == '_' || c == '-' || c == '+';
}

bool is_directive_safe(char c)
{
  return is_portable(c) || c == ':' || c == '/' || c == '=' || c == ',' || c == '%' || c == '@';
}

bool is_control(char c)
{
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

} // namespace

std::string sanitize_job_name(std::string_view name)
{
  if (name.empty()) {
    return "job";
  }
  std::string out(name);
  for (char& c : out) {
    if (!is_portable(c)) {
      c = '_';
    }
  }
  return out;
}

std::string directive_quote(std::string_view field, std::string_view value)
{
  if (value.empty()) {
    throw InputError("{} is empty and cannot be written as an #SBATCH value", field);
  }
  bool safe = true;
  for (char c : value) {
    if (is_control(c)) {
      InputError error("{} contains a control character (byte {:#04x}); it cannot be written "
                       "safely in an #SBATCH line",
                       field, static_cast<unsigned>(static_cast<unsigned char>(c)));
      error.hint = "remove newlines and other control characters from the value";
      throw error;
    }
    safe = safe && is_directive_safe(c);
  }
  if (safe) {
    return std::string(value);
  }
  std::string out = "\"";
  for (char c : value) {
    if (c == '\\' || c == '"' || c == '\'' || c == '#') {
      out += '\\';
    }
    out += c;
  }
  out += '"';
  return out;
}

} // namespace lg::render
