// Secrets (set -x around them, tokens written into the script) and leftover
// placeholders.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <set>
#include <string_view>

namespace lg::audit::detail {

namespace {

bool secret_name(const std::string& name)
{
  static constexpr std::array<std::string_view, 5> k_parts = {"API_KEY", "APIKEY", "ACCESS_KEY", "PRIVATE_KEY", "PASSWORD"};
  for (auto part : k_parts) {
    if (name.find(part) != std::string::npos) {
      return true;
    }
  }
  // TOKEN, SECRET, PASSWD as whole _-separated words (not TOKENIZER_PATH).
  std::size_t start = 0;
  while (start <= name.size()) {
    const auto end = std::min(name.find('_', start), name.size());
    const std::string_view word(name.data() + start, end - start);
    if (word == "TOKEN" || word == "TOKENS" || word == "SECRET" || word == "PASSWD" || word == "PAT") {
      return true;
    }
    start = end + 1;
  }
  return false;
}

bool alnum_run(std::string_view text, std::size_t from, std::size_t min)
{
  std::size_t n = 0;
  for (std::size_t i = from; i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) != 0 || text[i] == '_'); ++i) {
    ++n;
  }
  return n >= min;
}

bool token_like(std::string_view t)
{
  return (t.starts_with("hf_") && alnum_run(t, 3, 30)) || (t.starts_with("ghp_") && alnum_run(t, 4, 30))
         || (t.starts_with("github_pat_") && alnum_run(t, 11, 30)) || (t.starts_with("sk-") && t.size() >= 35)
         || t.starts_with("xoxb-") || t.starts_with("xoxp-") || (t.starts_with("AKIA") && t.size() == 20);
}

bool angle_placeholder(std::string_view t)
{
  const auto open = t.find('<');
  const auto close = open == std::string_view::npos ? open : t.find('>', open);
  if (close == std::string_view::npos || close - open < 2 || close - open > 60) {
    return false;
  }
  bool letter = false;
  for (std::size_t i = open + 1; i < close; ++i) {
    const char c = t[i];
    letter = letter || std::isalpha(static_cast<unsigned char>(c)) != 0;
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && std::string_view(" _-./:").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return letter;
}

bool dunder_placeholder(std::string_view t)
{
  const auto open = t.find("__");
  const auto close = open == std::string_view::npos ? open : t.find("__", open + 2);
  if (close == std::string_view::npos || close == open + 2) {
    return false;
  }
  for (std::size_t i = open + 2; i < close; ++i) {
    if (std::isupper(static_cast<unsigned char>(t[i])) == 0 && t[i] != '_' && std::isdigit(static_cast<unsigned char>(t[i])) == 0) {
      return false;
    }
  }
  return true;
}

} // namespace

bool placeholder(std::string_view t, bool template_mode)
{
  if (t.empty()) {
    return false;
  }
  if (!template_mode && t.find("{{") != std::string_view::npos && t.find("}}") != std::string_view::npos) {
    return true;
  }
  return angle_placeholder(t) || dunder_placeholder(t) || t.starts_with("your_") || t.starts_with("YOUR_")
         || t.starts_with("<your") || t.find("/path/to/") != std::string_view::npos || t.starts_with("path/to/")
         || t == "CHANGEME" || t == "CHANGE_ME" || t == "REPLACE_ME" || t == "FIXME" || t == "TODO";
}

namespace {

bool xtrace_at(const ScriptModel& m, int offset)
{
  bool on = m.xtrace_from_shebang;
  for (const auto& [at, state] : m.xtrace) {
    if (at < offset) {
      on = state;
    }
  }
  return on;
}

void secrets(FindingContext& c)
{
  std::set<std::string> traced;
  for (const auto& a : c.model.assignments) {
    if (!secret_name(a.name) || a.kind == AssignKind::unset) {
      continue;
    }
    if (xtrace_at(c.model, a.offset) && traced.insert(a.name).second) {
      c.add(Severity::warning, "audit.xtrace_secret",
            fmt::format("set -x is on where {} is assigned: bash prints the value into the job log", a.name),
            "wrap the secret in `set +x` … `set -x`, or turn tracing on after it", a.offset);
    }
    const std::string value = a.value.empty() ? "" : a.value.front().text();
    if (a.literal && a.known && !value.empty() && !placeholder(value, c.options.template_mode) && value[0] != '/'
        && value[0] != '~' && value != "0" && value != "1") {
      c.add(Severity::error, "audit.secret_in_script",
            fmt::format("{} is written into the script: every copy of the template and every archived job script "
                        "carries it",
                        a.name),
            fmt::format("read it at run time from a file only you can read: export {}=\"$(cat ~/.secrets/{})\"", a.name,
                        a.name),
            a.value_offset);
    } else if (!value.empty() && token_like(value)) {
      c.add(Severity::error, "audit.secret_in_script", fmt::format("{} holds what looks like a token", a.name),
            "read the token from a file at run time", a.value_offset);
    }
  }
  for (const auto& use : c.model.uses) {
    if (secret_name(use.name) && use.batch_shell && xtrace_at(c.model, use.offset) && traced.insert(use.name).second) {
      c.add(Severity::warning, "audit.xtrace_secret",
            fmt::format("set -x is on where ${} is expanded: bash prints the secret into the job log", use.name),
            "turn tracing off (set +x) around commands that use secrets", use.offset);
    }
  }
}

// A directive line's words, and each word's value after '='.
bool directive_placeholder(const std::string& line, bool template_mode)
{
  std::size_t i = 0;
  while (i < line.size()) {
    const auto end = std::min(line.find_first_of(" \t", i), line.size());
    const std::string word = line.substr(i, end - i);
    const auto eq = word.find('=');
    if (placeholder(word, template_mode) || (eq != std::string::npos && placeholder(word.substr(eq + 1), template_mode))) {
      return true;
    }
    i = end + 1;
  }
  return placeholder(line, template_mode);
}

void placeholders(FindingContext& c)
{
  const ScriptModel& m = c.model;
  const bool tmpl = c.options.template_mode;
  std::set<int> lines;  // one finding per line
  for (std::size_t l = 0; l < m.line_starts.size(); ++l) {
    const auto begin = static_cast<std::size_t>(m.line_starts[l]);
    if (m.text.compare(begin, 8, "#SBATCH ") != 0) {
      continue;
    }
    const auto eol = m.text.find('\n', begin);
    const std::string line = m.text.substr(begin, eol == std::string::npos ? std::string::npos : eol - begin);
    if (directive_placeholder(line.substr(8, line.find(" #", 8) == std::string::npos ? std::string::npos : line.find(" #", 8) - 8), tmpl)
        && lines.insert(static_cast<int>(l) + 1).second) {
      c.add(Severity::error, "audit.placeholder",
            fmt::format("leftover placeholder in a directive: {}", line), "fill in the real value", static_cast<int>(begin));
    }
  }
  auto check_word = [&](const Word& w) {
    if (w.offset >= 0 && placeholder(w.text(), tmpl) && lines.insert(m.line_of(w.offset)).second) {
      c.add(Severity::warning, "audit.placeholder", fmt::format("leftover placeholder: {}", w.text()),
            "fill in the real value (or read it from a variable the caller sets)", w.offset);
    }
  };
  for (const auto& a : m.assignments) {
    for (const auto& w : a.value) {
      if (w.known && !a.prefix) {
        check_word(w);
      }
    }
  }
  for (const auto& l : m.launches) {
    for (const auto& w : m.commands[static_cast<std::size_t>(l.command)].words) {
      if (w.known) {
        check_word(w);
      }
    }
  }
}

} // namespace

void secret_findings(FindingContext& c)
{
  secrets(c);
  placeholders(c);
}

} // namespace lg::audit::detail
