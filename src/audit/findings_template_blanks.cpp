// What a template leaves for its reader to fill in and the script then runs
// with: `NAME=  # what goes here`, `X=""` guarded by `[ -z "$X" ] … exit`,
// `source #path`; split from findings_words.cpp.
#include "audit/findings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace lg::audit::detail {

namespace {

// `LUSTRE=  # Path to home dir`: a template's blank, an empty value with a
// comment saying what belongs there, left unfilled. The variable is empty,
// and so is every path and option built from it (`${LUSTRE}/NeMo` is
// `/NeMo`). Round 22's NeMo BLOOM template left five. A warning, once per
// name, listing the lines that use it; not for names never used.
void template_blanks(FindingContext& c)
{
  const ScriptModel& m = c.model;
  const std::string& t = m.text;
  for (const Assignment& a : m.assignments) {
    if (a.kind != AssignKind::assign || a.prefix || a.is_array || a.command < 0 || a.offset < 0
        || m.commands[static_cast<std::size_t>(a.command)].depth != 0
        || (a.value.size() == 1 && !a.value.front().text().empty()) || a.value.size() > 1) {
      continue;
    }
    std::size_t at = static_cast<std::size_t>(a.offset) + a.name.size() + 1;
    if (at >= t.size() || (t[at] != ' ' && t[at] != '\t')) {
      continue;  // `NAME=` then the line end or `;`: a deliberate empty value
    }
    while (at < t.size() && (t[at] == ' ' || t[at] == '\t')) {
      ++at;
    }
    if (at >= t.size() || t[at] != '#') {
      continue;
    }
    const auto line_end = t.find('\n', at);
    std::string comment = t.substr(at, line_end == std::string::npos ? std::string::npos : line_end - at);
    while (!comment.empty() && (comment.back() == '\r' || comment.back() == ' ')) {
      comment.pop_back();
    }
    std::vector<int> lines;
    for (const VarUse& u : m.uses) {
      const int line = m.line_of(u.offset);
      if (u.name == a.name && u.offset > a.offset && !u.guarded
          && std::find(lines.begin(), lines.end(), line) == lines.end()) {
        lines.push_back(line);
      }
    }
    if (lines.empty() || comment.size() < 3) {
      continue;
    }
    if (comment.size() > 60) {
      auto cut = comment.rfind(' ', 57);
      cut = cut == std::string::npos || cut < 20 ? 57 : cut;
      while (cut > 0 && (static_cast<unsigned char>(comment[cut]) & 0xC0) == 0x80) {
        --cut;  // not inside a UTF-8 character
      }
      comment = comment.substr(0, cut) + "…";
    }
    c.add(Severity::warning, "audit.placeholder",
          fmt::format("leftover blank: `{}=` is empty, with a comment saying what belongs there (`{}`), so ${} "
                      "expands to nothing on line{} {}",
                      a.name, comment, a.name, lines.size() > 1 ? "s" : "", fmt::join(lines, ", ")),
          fmt::format("fill in {} (or export it before sbatch and write {}=\"${{{}:?set {}}}\")", a.name, a.name,
                      a.name, a.name),
          a.offset);
  }
}

// `CONTAINER_IMAGE=""` and later `if [ -z "$CONTAINER_IMAGE" ]; then …
// exit 1`: a template's empty field guarded by an exit. As written the job
// always stops at the guard, and the plain assignment replaces a value the
// submitting shell exported (bash(1), "Environment": an assignment changes
// the variable the shell inherited). Round 23's Megatron Bridge DeepSeek-V4
// SFT example, 8 exclusive nodes. Judged only where the evaluator knows the
// value is still the empty literal at the test.
void empty_then_exit(FindingContext& c)
{
  const ScriptModel& m = c.model;
  for (std::size_t i = 0; i + 1 < m.commands.size(); ++i) {
    const Command& test = m.commands[i];
    const auto& w = test.words;
    if (w.size() < 3 || !w[0].known || !(w[0].text() == "[" || w[0].text() == "[[" || w[0].text() == "test")
        || !w[1].known || w[1].text() != "-z" || !w[2].known || !w[2].text().empty() || w[2].expanded.size() != 1) {
      continue;
    }
    const std::string& name = w[2].expanded.front();
    // `… ] && exit`, or `exit` inside the `then` branch that follows.
    bool exits = false;
    const auto starts = [&](const Command& cmd, std::string_view word) {
      return cmd.begin >= 0 && m.text.compare(static_cast<std::size_t>(cmd.begin), word.size(), word) == 0;
    };
    if (test.terminator == "&&") {
      const Command& next = m.commands[i + 1];
      exits = !next.words.empty() && next.words[0].known && next.words[0].text() == "exit";
    } else if (starts(test, "if ") || starts(test, "if\t")) {
      // The `then` branch: the commands up to else/elif/fi, at the if's depth.
      for (std::size_t k = i + 1; k < m.commands.size() && k <= i + 8 && !exits; ++k) {
        const Command& next = m.commands[k];
        if (next.depth < test.depth || starts(next, "else") || starts(next, "elif") || starts(next, "fi")) {
          break;
        }
        exits = !next.words.empty() && next.words[0].known && next.words[0].text() == "exit";
      }
    }
    if (!exits) {
      continue;
    }
    const Assignment* set = nullptr;
    for (const Assignment& a : m.assignments) {
      if (a.name == name && a.offset < test.begin) {
        set = &a;
      }
    }
    if (set == nullptr || set->kind != AssignKind::assign || set->prefix || !set->literal || set->command < 0
        || m.commands[static_cast<std::size_t>(set->command)].depth != 0) {
      continue;
    }
    c.add(Severity::warning, "audit.empty_then_exit",
          fmt::format("{} is set to an empty value here and tested on line {} (`-z`, then exit): as written the job "
                      "always stops there, after waiting in the queue, and this assignment also replaces any value "
                      "the submitting shell exported",
                      name, m.line_of(test.begin)),
          fmt::format("fill in {}, or take it from the environment: {}=\"${{{}:-}}\"", name, name, name),
          set->offset);
  }
}

// `source #path environment`: the `#` starts a comment, so `source` gets no
// file; bash says "source: filename argument required" and sources nothing
// (with `set -e` the script stops there). Round 24's Leonardo job left its
// environment's path as this placeholder.
void empty_sources(FindingContext& c)
{
  const ScriptModel& m = c.model;
  const std::string& t = m.text;
  for (int at : m.sources) {
    auto i = static_cast<std::size_t>(at);
    while (i < t.size() && t[i] != ' ' && t[i] != '\t' && t[i] != '\n' && t[i] != ';') {
      ++i;  // `source` or `.`
    }
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) {
      ++i;
    }
    if (i < t.size() && t[i] != '#' && t[i] != '\n' && t[i] != ';' && t[i] != '\r') {
      continue;
    }
    const auto eol = t.find('\n', i);
    const std::string rest = i < t.size() && t[i] == '#' ? t.substr(i, eol == std::string::npos ? std::string::npos : eol - i) : "";
    c.add(Severity::warning, "audit.empty_source",
          fmt::format("`source` gets no file{}: bash says \"filename argument required\" and sources nothing, so "
                      "the environment it was to set up is missing from the job",
                      rest.empty() ? "" : fmt::format(" (`{}` is a comment)", rest)),
          "write the file to source (the environment's activate script, a setup file)", at);
  }
}

}  // namespace

void blank_findings(FindingContext& context)
{
  template_blanks(context);
  empty_then_exit(context);
  empty_sources(context);
}

}  // namespace lg::audit::detail
