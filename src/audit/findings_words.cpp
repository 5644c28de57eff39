// Words bash reads otherwise than their author meant (bash(1), "Arrays",
// "Word Splitting", "Redirection"): a `\ #` comment inside `( … )` becomes
// elements, a quoted `"$(scontrol show hostnames …)"` is one element holding
// every host, and an unquoted `<placeholder>` is two redirections.
#include "audit/findings.hpp"
#include "audit/launch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>
#include <vector>

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

// The command a `\ #` cut in two was meant to be: its words before the
// comment and the next command's, read as one launch. What the launcher would
// have been given is judged as well, so fixing the comment does not bring a
// second failure into view only at the next run.
void meant_command(FindingContext& c, const Command& cmd, std::vector<Word>::const_iterator hash, const Command& next)
{
  std::vector<Word> words(cmd.words.begin(), hash);
  words.insert(words.end(), next.words.begin(), next.words.end());
  const auto launch = parse_launch(words, [](const Word&) { return SubScript{}; });
  if (launch) {
    report_launcher_program(c, *launch, words,
                            fmt::format("as meant (line {} continued into line {}): ", c.model.line_of(hash->offset),
                                        c.model.line_of(next.begin)));
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
    if (!cut.empty()) {
      meant_command(c, cmd, hash, m.commands[i + 1]);
    }
  }
}

// The text of line `line` (1-based) without its line end.
std::string_view line_text(const ScriptModel& m, int line)
{
  const auto begin = static_cast<std::size_t>(m.line_begin(line));
  auto end = static_cast<std::size_t>(m.line_begin(line + 1));
  while (end > begin && (m.text[end - 1] == '\n' || m.text[end - 1] == '\r')) {
    --end;
  }
  return std::string_view(m.text).substr(begin, end - begin);
}

// Ends in a backslash that continues the line (an odd run of them).
bool continued(std::string_view line)
{
  std::size_t run = 0;
  while (run < line.size() && line[line.size() - 1 - run] == '\\') {
    ++run;
  }
  return run % 2 == 1;
}

bool comment_line(std::string_view line)
{
  const auto first = line.find_first_not_of(" \t");
  return first != std::string_view::npos && line[first] == '#';
}

// An argument, not a command: `--flag`, `-x`, or a Hydra/NeMo override
// `a.b=c` (a dot before the `=`: not a variable name, so no assignment).
bool argument_shaped(std::string_view word)
{
  if (word.starts_with("-")) {
    return true;
  }
  const auto eq = word.find('=');
  return eq != std::string_view::npos && eq > 0 && word.substr(0, eq).find('.') != std::string_view::npos;
}

// `torchrun … \` then a line `# --old-flag \`, then `--more 1 \` lines:
// after the continuation, `#` at the start of a word begins a comment that
// runs to the line's end (bash(1), COMMENTS), backslash included, so the
// command ends at the comment and the lines after it run as a command of
// their own ("--more: command not found", exit 127): none of their arguments
// reach the program. Round 21's NeMo job lost its resume and checkpoint
// overrides that way.
void comment_lines_in_continuation(FindingContext& c)
{
  const ScriptModel& m = c.model;
  for (std::size_t i = 0; i + 1 < m.commands.size(); ++i) {
    const Command& cmd = m.commands[i];
    const Command& next = m.commands[i + 1];
    if (cmd.terminator != "\n" || cmd.words.empty() || next.words.empty() || cmd.end <= cmd.begin || next.begin < 0
        || !next.words.front().known || next.words.front().offset != next.begin) {
      continue;
    }
    const int last = m.line_of(cmd.end - 1);
    const int first_next = m.line_of(next.begin);
    // `--model_name #model_path \`: a `#` starting a word on the command's
    // own last line, its comment holding that line's `\`.
    const auto line_end = static_cast<std::size_t>(m.line_begin(last + 1));
    const auto hash = m.text.find('#', static_cast<std::size_t>(cmd.end));
    const bool trailing = hash != std::string::npos && hash < line_end && hash > 0
                          && (m.text[hash - 1] == ' ' || m.text[hash - 1] == '\t');
    if (first_next <= last + (trailing ? 0 : 1) || !continued(line_text(m, last))
        || !argument_shaped(next.words.front().text())) {
      continue;
    }
    bool comments_only = true;
    for (int line = last + 1; line < first_next && comments_only; ++line) {
      comments_only = comment_line(line_text(m, line));
    }
    if (!comments_only) {
      continue;
    }
    const int next_last = m.line_of(std::max(next.begin, next.end - 1));
    if (trailing) {
      const auto word_end = m.text.find_first_of(" \t\n", hash);
      const std::string word = m.text.substr(hash, std::min(word_end, line_end) - hash);
      c.add(Severity::error, "audit.comment_continuation",
            fmt::format("`{}` on line {} starts a comment (a `#` at the start of a word) that runs to the line's end, "
                        "its `\\` included: {} stops after `{}`, and line{} {} (`{}` …) run{} as a command of its "
                        "own, which fails (command not found); {} never gets those arguments",
                        word, last, cmd.words.front().text(), cmd.words.back().text(),
                        next_last > first_next ? "s" : "",
                        next_last > first_next ? fmt::format("{}-{}", first_next, next_last)
                                               : std::to_string(first_next),
                        next.words.front().text(), next_last > first_next ? "" : "s", cmd.words.front().text()),
            fmt::format("write the value in place of `{}` (a placeholder?), or quote it: a `#` that starts a word "
                        "begins a comment",
                        word),
            static_cast<int>(hash));
      continue;
    }
    c.add(Severity::error, "audit.comment_continuation",
          fmt::format("the comment on line {} ends the command continued from line {}: after the `\\` a `#` "
                      "starts a comment to the line's end (its own `\\` included), so {} stops there and line{} {} "
                      "(`{}` …) run{} as a command of its own, which fails (command not found); {} never gets those "
                      "arguments",
                      last + 1, last, cmd.words.front().text(), next_last > first_next ? "s" : "",
                      next_last > first_next ? fmt::format("{}-{}", first_next, next_last) : std::to_string(first_next),
                      next.words.front().text(), next_last > first_next ? "" : "s", cmd.words.front().text()),
          "move the commented-out lines below the command (or delete them): a comment cannot sit inside a "
          "continued command",
          m.line_begin(last + 1) + static_cast<int>(line_text(m, last + 1).find('#')));
  }
}

// `—-config_file=x.yaml`: a word that starts with a typographic dash (U+2014
// em dash, U+2013 en dash, U+2212 minus, as word processors and web pages
// write "-") is no option to any launcher: accelerate, torchrun and argparse
// take it for the script or a positional argument, and the job stops at
// once. Round 27's Alliance Canada template. An error, on any command word.
void typographic_dashes(FindingContext& c)
{
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 3> k_dashes = {{
    {"\xE2\x80\x94", "U+2014 em dash"}, {"\xE2\x80\x93", "U+2013 en dash"}, {"\xE2\x88\x92", "U+2212 minus"}}};
  for (const Command& command : c.model.commands) {
    for (std::size_t i = 1; i < command.words.size(); ++i) {
      const Word& w = command.words[i];
      for (const auto& [dash, name] : k_dashes) {
        if (!w.known || w.offset < 0 || !w.text().starts_with(dash) || w.text().size() <= dash.size()) {
          continue;
        }
        const std::string rest = w.text().substr(dash.size());
        const std::string meant = (rest.starts_with("-") ? "-" : "--") + rest;
        c.add(Severity::error, "audit.typographic_dash",
              fmt::format("`{}` starts with a typographic dash ({}), not '-': {} reads it as an argument, not an "
                          "option, so the option is not given and the program stops or takes it for its script",
                          w.text().substr(0, w.text().find('=')), name, command.words.front().text()),
              fmt::format("write it with ASCII hyphens: `{}`", meant.substr(0, meant.find('='))), w.offset);
      }
    }
  }
}


// `torchrun \ ` with a space after the backslash: the backslash quotes the
// space, not the newline (bash(1), "QUOTING": "a \ followed by a newline is a
// line continuation"; any other character is taken literally), so the command
// ends at the line end with a last argument " ", and the next line runs as a
// command of its own (bash here: "--master_port=29501: command not found").
void space_after_backslash(FindingContext& c)
{
  const ScriptModel& m = c.model;
  std::size_t first = 0;  // index in c.out of the finding that opened the run (+1; 0: none)
  int run_end_line = -1;
  for (std::size_t i = 0; i < m.commands.size(); ++i) {
    const Command& cmd = m.commands[i];
    if (cmd.terminator != "\n" || cmd.words.empty()) {
      continue;
    }
    const Word& last = cmd.words.back();
    const std::string& t = last.text();
    if (!last.known || t.empty() || t.find_first_not_of(" \t") != std::string::npos || last.offset < cmd.begin
        || last.offset >= cmd.end || last.offset < 1
        || m.text.compare(static_cast<std::size_t>(last.offset) - 1, 1, "\\") != 0) {
      continue;
    }
    if (std::any_of(m.assignments.begin(), m.assignments.end(),
                    [&](const Assignment& a) { return a.is_array && a.command == static_cast<int>(i); })) {
      continue;  // inside ( … ) a newline needs no backslash: the element " " is another matter
    }
    if (first != 0 && m.line_of(cmd.begin) == run_end_line + 1) {
      run_end_line = m.line_of(last.offset);
      c.out[first - 1].diagnostic.message += fmt::format(" (line {} has the same space after its `\\`)", run_end_line);
      continue;
    }
    std::string cut = " and the program receives a last argument \" \"";
    Severity severity = Severity::warning;
    if (i + 1 < m.commands.size() && m.commands[i + 1].begin >= 0) {
      const auto from = static_cast<std::size_t>(m.commands[i + 1].begin);
      const auto word_end = m.text.find_first_of(" \t\n", from);
      cut += fmt::format("; line {} (`{}` …) runs as a command of its own", m.line_of(m.commands[i + 1].begin),
                         m.text.substr(from, word_end == std::string::npos ? std::string::npos : word_end - from));
      severity = Severity::error;
    }
    run_end_line = m.line_of(last.offset);
    c.add(severity, "audit.space_after_backslash",
          fmt::format("a space follows the `\\` that should continue {} onto the next line: the backslash quotes the "
                      "space, not the newline, so the command ends here{}",
                      cmd.words.front().text().substr(cmd.words.front().text().rfind('/') == std::string::npos
                                                        ? 0
                                                        : cmd.words.front().text().rfind('/') + 1),
                      cut),
          "delete the spaces after the backslash (it must be the last character of the line)", last.offset - 1);
    first = c.out.size();
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
  // One finding per placeholder, on its first line, naming the others.
  std::vector<std::pair<std::string, std::vector<int>>> seen;
  for (int offset : c.model.angle_redirects) {
    const auto close = c.model.text.find('>', static_cast<std::size_t>(offset));
    const std::string word = c.model.text.substr(static_cast<std::size_t>(offset),
                                                 close == std::string::npos ? 1 : close - static_cast<std::size_t>(offset) + 1);
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == word; });
    if (it == seen.end()) {
      seen.push_back({word, {offset}});
    } else {
      it->second.push_back(offset);
    }
  }
  for (const auto& [word, offsets] : seen) {
    std::string also;
    for (std::size_t i = 1; i < offsets.size(); ++i) {
      also += fmt::format("{}{}", also.empty() ? "" : ", ", c.model.line_of(offsets[i]));
    }
    c.add(Severity::error, "audit.placeholder",
          fmt::format("unquoted {} is a placeholder bash reads as redirections (input from a file named {}, output "
                      "into the next word): the command fails before it starts{}",
                      word, word.substr(1, word.size() >= 2 ? word.size() - 2 : 0),
                      also.empty() ? "" : fmt::format(" (also on line{} {})", offsets.size() > 2 ? "s" : "", also)),
          "replace the placeholder with the real value", offsets.front());
  }
}



// `if [ "$SLURM_CPUS_PER_TASK" > 0 ]`: the `>` redirects the test's (empty)
// output into a file named `0`, and `[` sees one word, true when it is not
// empty (bash(1), "CONDITIONAL EXPRESSIONS": numbers compare with -gt; `>`
// compares strings only inside [[ … ]]).
void test_redirects(FindingContext& c)
{
  for (int offset : c.model.test_redirects) {
    const auto at = static_cast<std::size_t>(offset);
    const char op = c.model.text[at];
    const auto target_begin = c.model.text.find_first_not_of(" \t", at + 1);
    const auto target_end = c.model.text.find_first_of(" \t\n;]", target_begin == std::string::npos ? at : target_begin);
    const std::string target = target_begin == std::string::npos
                                 ? std::string()
                                 : c.model.text.substr(target_begin, target_end == std::string::npos
                                                                       ? std::string::npos
                                                                       : target_end - target_begin);
    c.add(Severity::warning, "audit.test_redirect",
          fmt::format("`{}` inside [ … ] is a redirection, not a comparison: bash {} `{}` and the test only checks "
                      "that the word before it is not empty",
                      op, op == '>' ? "creates (or empties) a file named" : "reads from a file named", target),
          op == '>' ? "compare numbers with -gt (or -ge), strings with [[ a > b ]]"
                    : "compare numbers with -lt (or -le), strings with [[ a < b ]]",
          offset);
  }
}

// `export /=/gpfs/…`: bash prints "not a valid identifier", the command
// fails (under set -e the script stops) and nothing is set or exported.
void invalid_names(FindingContext& c)
{
  for (const auto& [offset, word] : c.model.invalid_names) {
    const std::string name = word.substr(0, word.find('='));
    c.add(Severity::warning, "audit.invalid_name",
          fmt::format("`{}` is not a variable name (letters, digits and `_`, not starting with a digit): bash says "
                      "\"`{}': not a valid identifier\" and sets nothing, so the variable meant here is never set",
                      name, word.size() > 40 ? word.substr(0, 40) + "…" : word),
          "write the variable's name before the `=`", offset);
  }
}

// Lower-case letters and digits of `s`: "--nemo_model" and "NEMO_MODEL" both
// give "nemomodel".
std::string squeezed_name(std::string_view s)
{
  std::string out;
  for (const char ch : s) {
    if (std::isalnum(static_cast<unsigned char>(ch)) != 0) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
  }
  return out;
}

// `NEMO_MODEL=` then `--nemo_model ${NEMO_MODEL} --hf_token …`: unquoted, the
// empty value is no word at all (bash(1), "Word Splitting": an unquoted
// expansion that results in nothing is removed), so the option takes the
// next word (`--hf_token`) as its value, or argparse stops with "expected
// one argument". Only where the option names the variable, so that
// `--fp16 $EXTRA_ARGS` (an empty list of extra words) is not taken for one.
void empty_option_values(FindingContext& c)
{
  const ScriptModel& m = c.model;
  const std::string& t = m.text;
  auto blank = [](char ch) { return ch == ' ' || ch == '\t'; };
  for (std::size_t ai = 0; ai < m.assignments.size(); ++ai) {
    const Assignment& a = m.assignments[ai];
    if (a.kind != AssignKind::assign || a.prefix || a.is_array || !a.known || a.command < 0 || a.offset < 0
        || m.commands[static_cast<std::size_t>(a.command)].depth != 0 || a.value.size() > 1
        || (a.value.size() == 1 && !a.value.front().text().empty())) {
      continue;
    }
    std::size_t value_at = static_cast<std::size_t>(a.offset) + a.name.size() + 1;
    while (value_at < t.size() && blank(t[value_at])) {
      ++value_at;
    }
    if (value_at < t.size() && (t[value_at] == '<' || t[value_at] == '#')) {
      continue;  // NAME=<placeholder>, NAME=  # what goes here: the placeholder's finding
    }
    std::size_t until = t.size();
    for (std::size_t bi = ai + 1; bi < m.assignments.size(); ++bi) {
      if (m.assignments[bi].name == a.name && m.assignments[bi].offset > a.offset) {
        until = static_cast<std::size_t>(m.assignments[bi].offset);
        break;
      }
    }
    bool reported = false;
    for (const std::string& form : {"${" + a.name + "}", "$" + a.name}) {
      for (auto at = t.find(form, static_cast<std::size_t>(a.offset)); !reported && at != std::string::npos && at < until;
           at = t.find(form, at + 1)) {
        const std::size_t end = at + form.size();
        const bool word_end = end >= t.size() || blank(t[end]) || t[end] == '\n' || t[end] == '\\';
        if (!word_end || at == 0 || !blank(t[at - 1])) {
          continue;  // part of a longer word ($NAME_2, "${NAME}", x$NAME): not an empty word
        }
        const auto line_begin = t.rfind('\n', at);
        const auto first = t.find_first_not_of(" \t", line_begin == std::string::npos ? 0 : line_begin + 1);
        if (first != std::string::npos && t[first] == '#') {
          continue;
        }
        // The word before it, on the same line: an option that names the variable.
        const auto option_end = t.find_last_not_of(" \t", at - 1);
        if (option_end == std::string::npos || t[option_end] == '\n') {
          continue;
        }
        const auto before = t.find_last_of(" \t\n\"'", option_end);
        const std::size_t option_begin = before == std::string::npos ? 0 : before + 1;
        const std::string option = t.substr(option_begin, option_end - option_begin + 1);
        if (!option.starts_with("-") || option.find('=') != std::string::npos) {
          continue;
        }
        const std::string o = squeezed_name(option);
        const std::string v = squeezed_name(a.name);
        if (o.size() < 3 || (v.find(o) == std::string::npos && o.find(v) == std::string::npos)) {
          continue;
        }
        // What the option takes instead: the next word (after a `\` line break).
        std::size_t next = end;
        while (next < t.size() && (blank(t[next]) || (t[next] == '\\' && next + 1 < t.size() && t[next + 1] == '\n')
                                   || (next > 0 && t[next - 1] == '\\' && t[next] == '\n'))) {
          ++next;
        }
        const auto next_end = t.find_first_of(" \t\n\"'", next);
        const std::string taken = next < t.size() && t[next] != '\n' ? t.substr(next, next_end - next) : std::string();
        c.add(Severity::warning, "audit.empty_option_value",
              fmt::format("{} is empty (line {}) and `{}` is unquoted: it expands to no word, so {} {}", a.name,
                          m.line_of(a.offset), form, option,
                          taken.empty() ? "gets no value (argparse: \"expected one argument\")"
                                        : fmt::format("takes `{}` as its value (or the program stops with \"expected "
                                                      "one argument\")",
                                                      taken)),
              fmt::format("set {} or drop `{} {}` when it is empty: ${{{}:+{} \"${}\"}}", a.name, option, form, a.name,
                          option, a.name),
              static_cast<int>(option_begin));
        reported = true;
      }
    }
  }
}

// `port= 6379`: the space after '=' ends the assignment, so bash runs `6379`
// as a command with port empty in its environment ("6379: command not
// found"), and port itself stays unset (bash(1), "SIMPLE COMMAND EXPANSION":
// assignments before a command name affect only that command). Only a
// number as the "command": nothing is named like that, and
// `CUDA_VISIBLE_DEVICES= python …` (an empty value on purpose) stays alone.
void assignment_spaces(FindingContext& c)
{
  for (const auto& a : c.model.spaced_assignments) {
    c.add(Severity::error, "audit.assignment_space",
          fmt::format("`{}= {}`: the space after `=` ends the assignment, so bash runs `{}` as a command (\"{}: "
                      "command not found\") and {} stays unset",
                      a.name, a.word, a.word, a.word, a.name),
          fmt::format("write {}={} (no space after '=')", a.name, a.word), a.offset);
  }
}

// `srun --container-image "$IMG" "${CONTAINER_SAVE}" …` with CONTAINER_SAVE=""
// on one branch: quoted, the empty value is still a word (bash(1), "Word
// Splitting": explicit null arguments are retained), and srun, which stops
// reading options at the first word that is not one, runs "" as the program:
// the local Slurm 22.05 prints "execve(): : No such file or directory".
void empty_quoted_words(FindingContext& c)
{
  const ScriptModel& m = c.model;
  const std::string& t = m.text;
  for (const auto& l : m.launches) {
    if (l.command < 0 || l.stages.empty() || l.stages.front().tool != "srun") {
      continue;
    }
    const Command& cmd = m.commands[static_cast<std::size_t>(l.command)];
    int end = cmd.end;
    if (l.program && l.program->offset > cmd.begin && l.program->offset < cmd.end) {
      end = l.program->offset;
    }
    for (auto at = t.find("\"$", static_cast<std::size_t>(cmd.begin)); at != std::string::npos && static_cast<int>(at) < end;
         at = t.find("\"$", at + 1)) {
      if (at == 0 || (t[at - 1] != ' ' && t[at - 1] != '\t')) {
        continue;
      }
      const auto close = t.find('"', at + 1);
      if (close == std::string::npos || static_cast<int>(close) >= end
          || (close + 1 < t.size() && t[close + 1] != ' ' && t[close + 1] != '\t' && t[close + 1] != '\\'
              && t[close + 1] != '\n')) {
        continue;
      }
      // `-w "$node"`: the value of the option before it, not a word of its own.
      const auto prev_end = t.find_last_not_of(" \t", at - 1);
      const auto prev_begin = prev_end == std::string::npos ? std::string::npos : t.find_last_of(" \t\n", prev_end);
      const std::string previous =
        prev_end == std::string::npos ? std::string() : t.substr(prev_begin == std::string::npos ? 0 : prev_begin + 1,
                                                                  prev_end - (prev_begin == std::string::npos ? 0 : prev_begin + 1) + 1);
      if (previous.starts_with("-") && previous.find('=') == std::string::npos) {
        continue;
      }
      std::string name = t.substr(at + 2, close - at - 2);
      if (name.size() > 2 && name.front() == '{' && name.back() == '}') {
        name = name.substr(1, name.size() - 2);
      }
      if (name.empty() || !std::all_of(name.begin(), name.end(), [](char ch) {
            return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_';
          })) {
        continue;
      }
      const auto empty = std::find_if(m.assignments.begin(), m.assignments.end(), [&](const Assignment& a) {
        return a.name == name && a.kind == AssignKind::assign && !a.prefix && !a.is_array && a.known && a.literal
               && (a.value.empty() || a.value.front().text().empty()) && a.offset < cmd.begin;
      });
      if (empty == m.assignments.end()) {
        continue;
      }
      c.add(Severity::warning, "audit.empty_quoted_word",
            fmt::format("\"${{{}}}\" among srun's options: where {} is empty (line {} sets it so), the quotes keep an "
                        "empty word, srun takes it for the program and the step fails (\"execve(): : No such file or "
                        "directory\")",
                        name, name, m.line_of(empty->offset)),
            fmt::format("write ${{{}:+\"${}\"}}: nothing when it is empty", name, name), static_cast<int>(at));
      break;
    }
  }
}

} // namespace

void word_findings(FindingContext& context)
{
  blank_findings(context);
  typographic_dashes(context);
  comment_lines_in_continuation(context);
  comment_continuations(context);
  space_after_backslash(context);
  array_comments(context);
  one_element_host_arrays(context);
  angle_redirects(context);
  test_redirects(context);
  invalid_names(context);
  empty_option_values(context);
  assignment_spaces(context);
  empty_quoted_words(context);
}

} // namespace lg::audit::detail
