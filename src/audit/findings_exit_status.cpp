// What ends a batch script otherwise than its author meant: `set -e` before
// `rc=$?`, an `exit` guard inside `$(…)`, and files looked up beside the
// spool copy sbatch runs.
#include "audit/findings.hpp"
#include "audit/job_from_script.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace lg::audit::detail {

// `#!/bin/bash -e` (or -xe, -ex …): errexit from the first line.
bool shebang_errexit(const std::string& text)
{
  if (!text.starts_with("#!")) {
    return false;
  }
  const std::string first = text.substr(0, text.find('\n'));
  for (auto at = first.find(" -"); at != std::string::npos; at = first.find(" -", at + 1)) {
    const auto end = first.find_first_of(" \t\r", at + 1);
    const std::string flags = first.substr(at + 2, end == std::string::npos ? std::string::npos : end - at - 2);
    if (!flags.empty() && flags.find_first_not_of("abefhkmnptuvxBCHP") == std::string::npos
        && flags.find('e') != std::string::npos) {
      return true;
    }
  }
  return false;
}

namespace {


// A function that guards with `exit 1`, called inside `$(…)`: the command
// substitution runs it in a subshell (bash(1), "Command Substitution": the
// command runs in a subshell environment), so `exit` ends only that
// subshell; without `set -e` the script goes on with an empty value. Round
// 25's OCI NeMo job read its tokens that way, on 64 GPUs. A warning at the
// call; not when the call's line checks the status (`|| exit`).
void exit_in_substitution(FindingContext& c)
{
  const ScriptModel& m = c.model;
  const std::string& t = m.text;
  const bool errexit = std::any_of(m.commands.begin(), m.commands.end(), [](const Command& command) {
    return command.depth == 0 && is_set_with(command, 'e', "errexit");
  });
  if (errexit || shebang_errexit(t)) {
    return;
  }
  for (const auto& [begin, end] : m.function_bodies) {
    // The name: `name() {` or `function name {` on the body's first line.
    const auto line = static_cast<std::size_t>(m.line_begin(m.line_of(begin)));
    std::string head = t.substr(line, t.find('\n', line) - line);
    if (head.starts_with("function ")) {
      head.erase(0, 9);
    }
    const auto name_end = head.find_first_of("( \t{");
    const std::string name = head.substr(0, name_end);
    if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
                           != std::string::npos) {
      continue;
    }
    const std::string body = t.substr(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
    if (body.find("exit ") == std::string::npos && body.find("exit\n") == std::string::npos) {
      continue;
    }
    for (const std::string& call : {"$(" + name, "$( " + name}) {
      for (auto at = t.find(call); at != std::string::npos; at = t.find(call, at + 1)) {
        const auto after = at + call.size();
        if (after < t.size() && (std::isalnum(static_cast<unsigned char>(t[after])) != 0 || t[after] == '_')) {
          continue;  // another name that starts the same
        }
        const auto eol = t.find('\n', at);
        const std::string rest = t.substr(at, eol == std::string::npos ? std::string::npos : eol - at);
        if (rest.find("||") != std::string::npos || static_cast<int>(at) < end) {
          continue;
        }
        c.add(Severity::warning, "audit.exit_in_substitution",
              fmt::format("`$({} …)` runs {} in a subshell, so its `exit` ends only that subshell, not the script: "
                          "with no `set -e` the job goes on with an empty value",
                          name, name),
              fmt::format("check the result where it is called: `X=$({} …) || exit 1` (or `set -e`)", name),
              static_cast<int>(at));
        break;
      }
    }
  }
}

// `SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)` in a batch
// script: sbatch hands slurmd a copy of the script, which runs it from its
// spool directory (on the local Slurm 22.05 `$0` and `${BASH_SOURCE[0]}` in a
// job are /…/spool/n1/job00077/slurm_script), so the directory is the spool
// directory and files looked up beside the script are not there. Round 25's
// Cosmos array job exited in every task at its `test -d` guard. A warning,
// once, naming the other lines; not where the script already knows
// (SLURM_SUBMIT_DIR, or the `scontrol show job … Command=` idiom).
void script_directory(FindingContext& c)
{
  const ScriptModel& m = c.model;
  if (m.directives.empty() || m.text.find("SLURM_SUBMIT_DIR") != std::string::npos
      || m.text.find("Command=") != std::string::npos) {
    return;
  }
  // Read from the text ($0 and BASH_SOURCE are not variables the evaluator
  // records): outside comment lines and heredoc bodies, after dirname,
  // realpath or readlink on its line.
  std::vector<int> offsets;
  for (const char* form : {"$0", "${0}", "${BASH_SOURCE"}) {
    for (auto at = m.text.find(form); at != std::string::npos; at = m.text.find(form, at + 1)) {
      const std::string_view f(form);
      if (f == "$0" && at + 2 < m.text.size() && std::isalnum(static_cast<unsigned char>(m.text[at + 2])) != 0) {
        continue;  // $0x is not $0 … (bash reads $0 then x, but no script means that)
      }
      const int offset = static_cast<int>(at);
      const bool in_heredoc = std::any_of(m.heredocs.begin(), m.heredocs.end(),
                                          [&](const auto& h) { return offset >= h.first && offset < h.second; });
      const auto begin = static_cast<std::size_t>(m.line_begin(m.line_of(offset)));
      const std::string before = m.text.substr(begin, at - begin);
      const auto first = before.find_first_not_of(" \t");
      if (in_heredoc || (first != std::string::npos && before[first] == '#')) {
        continue;
      }
      if (before.find("dirname") != std::string::npos || before.find("realpath") != std::string::npos
          || before.find("readlink") != std::string::npos) {
        offsets.push_back(offset);
      }
    }
  }
  std::sort(offsets.begin(), offsets.end());
  if (offsets.empty()) {
    return;
  }
  std::vector<int> lines;
  for (std::size_t i = 1; i < offsets.size(); ++i) {
    const int line = m.line_of(offsets[i]);
    if (line != m.line_of(offsets.front()) && std::find(lines.begin(), lines.end(), line) == lines.end()) {
      lines.push_back(line);
    }
  }
  c.add(Severity::warning, "audit.script_directory",
        fmt::format("the script's own directory is taken from {}: sbatch runs a copy of the script from slurmd's "
                    "spool directory (…/slurm_script), so this is that directory, not the script's, and files looked "
                    "up beside the script are not found there{}",
                    m.text.compare(static_cast<std::size_t>(offsets.front()), 2, "$0") == 0 ? "$0" : "BASH_SOURCE",
                    lines.empty() ? "" : fmt::format(" (also on line{} {})", lines.size() > 1 ? "s" : "",
                                                     fmt::join(lines, ", "))),
        "use $SLURM_SUBMIT_DIR (where sbatch ran) or an absolute path", offsets.front());
}

// `set -e` then `srun …` and `rc=$?` on the next line: under errexit a
// command that fails ends the shell (bash(1), `set -e`: "Exit immediately if
// a pipeline … returns a non-zero status"), so the status line only ever
// runs after a success, and the handling after it (a fallback launcher, a
// retry, the log of the exit code) never sees a failure. Round 24's Alvis
// job tried three launchers that way. A warning; not where the command is
// a condition (`if`, `&&`, `||`: errexit does not apply there).
void errexit_status(FindingContext& c)
{
  const ScriptModel& m = c.model;
  AuditFinding* found = nullptr;
  std::vector<int> also;
  int errexit = shebang_errexit(m.text) ? 0 : -1;
  for (std::size_t i = 0; i + 1 < m.commands.size(); ++i) {
    const Command& command = m.commands[i];
    if (command.depth == 0 && is_set_with(command, 'e', "errexit")) {
      errexit = command.begin;
    }
    const bool set = !command.words.empty() && command.words.front().known && command.words.front().text() == "set";
    if (set && std::any_of(command.words.begin() + 1, command.words.end(), [](const Word& w) {
          return w.text().starts_with("+") && w.text().find('e') != std::string::npos;
        })) {
      errexit = -1;  // set +e (at any depth: off from here on, as far as this reading goes)
    }
    if (errexit < 0 || command.words.empty() || !command.words.front().known || command.terminator != "\n"
        || (i > 0 && (m.commands[i - 1].terminator == "&&" || m.commands[i - 1].terminator == "||"))) {
      continue;
    }
    const std::string& first = command.words.front().text();
    if (first != "srun" && first != "mpirun" && first != "torchrun" && first != "deepspeed") {
      continue;
    }
    if (command.begin >= 0 && m.text.compare(static_cast<std::size_t>(command.begin), 3, "if ") == 0) {
      continue;
    }
    const Command& next = m.commands[i + 1];
    const auto from = static_cast<std::size_t>(std::max(0, next.begin));
    const auto to = static_cast<std::size_t>(std::max(next.begin, next.end));
    const std::string text = m.text.substr(from, to - from);
    if (text.find("$?") == std::string::npos || text.find('=') == std::string::npos) {
      continue;
    }
    if (found != nullptr) {
      also.push_back(m.line_of(command.begin));
      continue;  // one finding, naming the other steps
    }
    found = &c.add(Severity::warning, "audit.errexit_status",
                   fmt::format("`set -e` is on (line {}), so when this {} fails the script ends here: `{}` on line {} "
                               "only ever records a success, and what the script does with a failure never runs",
                               errexit == 0 ? 1 : m.line_of(errexit), first,
                               text.substr(0, text.find_first_of(" ;\n")), m.line_of(next.begin)),
                   fmt::format("keep the status without ending the script: `{} … || rc=$?` (rc=0 before it), or "
                               "`set +e` around the step",
                               first),
                   command.begin);
  }
  if (found != nullptr && !also.empty()) {
    found->diagnostic.message += fmt::format(" (the same for the step{} on line{} {})", also.size() > 1 ? "s" : "",
                                             also.size() > 1 ? "s" : "", fmt::join(also, ", "));
  }
}

}  // namespace

void exit_status_findings(FindingContext& context)
{
  errexit_status(context);
  script_directory(context);
  exit_in_substitution(context);
}

}  // namespace lg::audit::detail
