// Words bash reads otherwise than their author meant (bash(1), "Arrays",
// "Word Splitting", "Redirection"): a `\ #` comment inside `( … )` becomes
// elements, a quoted `"$(scontrol show hostnames …)"` is one element holding
// every host, and an unquoted `<placeholder>` is two redirections.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace lg::audit::detail {

namespace {

// `ARGS=( --tp 2 \ # tensor parallel` : the backslash quotes the space, so
// `#` does not start a comment; " #", "tensor", "parallel" are elements that
// reach the program's argument parser.
void array_comments(FindingContext& c)
{
  for (const auto& a : c.model.assignments) {
    if (!a.is_array) {
      continue;
    }
    for (const auto& w : a.value) {
      const std::string& t = w.text();
      if (t.size() >= 2 && t[0] == ' ' && t[1] == '#' && w.offset >= 0) {
        c.add(Severity::error, "audit.array_comment",
              fmt::format("`\\ #` inside the array {}=( … ): the backslash quotes the space, so `#` starts no "
                          "comment and the comment's words become elements (passed on as arguments)",
                          a.name),
              "end the line with `\\` alone and put the comment on a line of its own (inside ( … ) a plain "
              "newline needs no backslash)",
              w.offset);
        break;
      }
    }
  }
}

// `accelerate launch --a 1 \ # comment` then more `--b 2 \` lines: outside
// an array too the backslash quotes the space, so `#` starts no comment: the
// comment's words are arguments, and the line has no continuation, so the
// next lines run as commands of their own ("--b: command not found").
void comment_continuations(FindingContext& c)
{
  const ScriptModel& m = c.model;
  for (std::size_t i = 0; i < m.commands.size(); ++i) {
    const Command& cmd = m.commands[i];
    // Written in this command, not brought in by "${ARGS[@]}" (an array's own finding).
    const auto hash = std::find_if(cmd.words.begin(), cmd.words.end(), [&](const Word& w) {
      const std::string& t = w.text();
      return w.known && w.offset >= cmd.begin && w.offset < cmd.end && t.size() >= 2 && t[0] == ' ' && t[1] == '#';
    });
    if (hash == cmd.words.begin() || hash == cmd.words.end()) {
      continue;
    }
    // Searched only for the rare command with `\ #` (for every command it
    // made a 20,000-line script quadratic).
    if (std::any_of(m.assignments.begin(), m.assignments.end(),
                    [&](const Assignment& a) { return a.is_array && a.command == static_cast<int>(i); })) {
      continue;  // arrays: audit.array_comment
    }
    std::string cut;
    if (i + 1 < m.commands.size() && cmd.terminator == "\n") {
      const Command& next = m.commands[i + 1];
      if (next.begin >= 0 && m.text.compare(static_cast<std::size_t>(next.begin), 1, "-") == 0) {
        const auto from = static_cast<std::size_t>(next.begin);
        const auto word_end = m.text.find_first_of(" \t\n=", from);
        cut = fmt::format("; and the line has no continuation, so line {} (`{}` …) runs as a command of its own and the "
                          "program starts without it",
                          m.line_of(next.begin),
                          m.text.substr(from, word_end == std::string::npos ? std::string::npos : word_end - from));
      }
    }
    c.add(Severity::error, "audit.comment_continuation",
          fmt::format("`\\ #` in the command: the backslash quotes the space, so `#` starts no comment and the "
                      "comment's words are passed to {} as arguments{}",
                      cmd.words.front().text(), cut),
          "end the line with `\\` alone and move the comment above the command", hash->offset);
  }
}

// `HOSTS=( "$(scontrol show hostnames "$SLURM_JOB_NODELIST")" )`: quoted, the
// substitution is not split, so ${HOSTS[0]} is every host name joined by
// newlines and ${#HOSTS[@]} is 1.
void one_element_host_arrays(FindingContext& c)
{
  for (const auto& a : c.model.assignments) {
    if (!a.is_array || a.append || a.value.size() != 1) {
      continue;
    }
    const Word& w = a.value.front();
    const std::string& t = w.text();
    if (w.known || w.opaque || t.find("$(") == std::string::npos || t.find("scontrol show hostname") == std::string::npos) {
      continue;
    }
    c.add(Severity::warning, "audit.host_array_one_element",
          fmt::format("{} is built as one element: the quoted $(scontrol show hostnames …) is not split, so "
                      "${{{}[0]}} holds every host name (newline-separated) and ${{#{}[@]}} is 1",
                      a.name, a.name, a.name),
          fmt::format("split it: mapfile -t {} < <(scontrol show hostnames \"$SLURM_JOB_NODELIST\")", a.name),
          a.offset);
  }
}

// `--data-path <PATH>` unquoted: bash opens the file PATH for input and
// sends the output into the next word; with no file PATH the command fails
// ("PATH: No such file or directory") before the program starts.
void angle_redirects(FindingContext& c)
{
  for (int offset : c.model.angle_redirects) {
    const auto close = c.model.text.find('>', static_cast<std::size_t>(offset));
    const std::string word = c.model.text.substr(static_cast<std::size_t>(offset),
                                                 close == std::string::npos ? 1 : close - static_cast<std::size_t>(offset) + 1);
    c.add(Severity::error, "audit.placeholder",
          fmt::format("unquoted {} is a placeholder bash reads as redirections (input from a file named {}, output "
                      "into the next word): the command fails before it starts",
                      word, word.substr(1, word.size() >= 2 ? word.size() - 2 : 0)),
          "replace the placeholder with the real value", offset);
  }
}

} // namespace

void word_findings(FindingContext& context)
{
  comment_continuations(context);
  array_comments(context);
  one_element_host_arrays(context);
  angle_redirects(context);
}

} // namespace lg::audit::detail
