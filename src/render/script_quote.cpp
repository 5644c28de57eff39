// Quoting for the bash script body. Plain words go through shell_quote (single
// quotes); words with control characters use bash's ANSI-C quoting $'…' so
// that no user byte ever starts a line of the script: a value with
// "\n#SBATCH --foo" stays on the line of its `export`.
#include "render/render.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"

#include <fmt/core.h>

namespace lg::render {

namespace {

bool is_control(unsigned char byte)
{
  return byte < 0x20 || byte == 0x7f;
}

void append_ansi_c(std::string& out, char c)
{
  switch (c) {
  case '\n':
    out += "\\n";
    return;
  case '\t':
    out += "\\t";
    return;
  case '\r':
    out += "\\r";
    return;
  case '\\':
    out += "\\\\";
    return;
  case '\'':
    out += "\\'";
    return;
  default:
    break;
  }
  const auto byte = static_cast<unsigned char>(c);
  if (is_control(byte)) {
    out += fmt::format("\\x{:02x}", static_cast<unsigned>(byte));
  } else {
    out += c;
  }
}

} // namespace

std::string script_quote(std::string_view word)
{
  bool control = false;
  for (char c : word) {
    if (c == '\0') {
      throw InputError("a value contains a NUL byte, which no command argument or environment "
                       "variable can carry");
    }
    control = control || is_control(static_cast<unsigned char>(c));
  }
  if (!control) {
    return shell_quote(word);
  }
  std::string out = "$'";
  for (char c : word) {
    append_ansi_c(out, c);
  }
  out += "'";
  return out;
}

std::string script_quote_per_job(std::string_view word)
{
  std::string out;
  std::size_t start = 0;
  for (std::size_t at = word.find("%j"); at != std::string_view::npos; at = word.find("%j", start)) {
    if (at > start) {
      out += script_quote(word.substr(start, at - start));
    }
    out += "\"$SLURM_JOB_ID\"";
    start = at + 2;
  }
  if (start < word.size() || out.empty()) {
    out += script_quote(word.substr(start));
  }
  return out;
}

} // namespace lg::render
