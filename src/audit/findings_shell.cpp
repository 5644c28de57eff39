// Shell-level problems that make a batch script fail before or while it
// launches, and that shellcheck does not rate as fatal for a job: CRLF line
// ends (the #SBATCH lines themselves: findings_directives.cpp), `srun … | tee` without
// pipefail, sbatch's input variables read inside the job, `set -u` with
// positional parameters, use before assignment, and no training launch read.
#include "audit/findings.hpp"
#include "audit/job_from_script.hpp"
#include "audit/launch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

namespace lg::audit::detail {

namespace {

void crlf(FindingContext& c)
{
  const std::string& t = c.model.text;
  const auto first = t.find("\r\n");
  if (first == std::string::npos) {
    return;
  }
  int count = 0;
  AuditFinding& finding = c.add(Severity::error, "audit.crlf", "", "convert the line ends: dos2unix, or --fix",
                                static_cast<int>(first));
  for (auto at = first; at != std::string::npos; at = t.find("\r\n", at + 2)) {
    finding.edits.push_back(Edit{static_cast<int>(at), static_cast<int>(at) + 1, ""});
    ++count;
  }
  finding.diagnostic.message = fmt::format(
    "the script has Windows (CRLF) line ends on {} line{}: bash reads the \\r as part of each line, so values end in "
    "\\r, `\\` continuations break and `#!/bin/bash\\r` is not found",
    count, count == 1 ? "" : "s");
}

// `NCCL_DEBUG=INFO HYDRA_FULL_ERROR=1 cd /opt/NeMo; python …`: assignments in
// front of a command exist only for that command (bash(1), "SIMPLE COMMAND
// EXPANSION"); in front of cd, echo or true they reach nothing that runs.
void prefix_on_builtin(FindingContext& c)
{
  for (const auto& p : c.model.builtin_prefixes) {
    c.add(Severity::warning, "audit.prefix_assignment",
          fmt::format("{} {} set in front of `{}` only: assignments before a command exist for that command, so "
                      "nothing after it (the training program included) sees them",
                      p.names, p.names.find(' ') == std::string::npos ? "is" : "are", p.builtin),
          "write them as `export NAME=value` on a line of their own before the program, or put them in front of "
          "the program itself",
          p.offset);
  }
}

bool words_contain(const Command& command, std::string_view needle)
{
  return std::any_of(command.words.begin(), command.words.end(),
                     [&](const Word& w) { return w.known && w.text().find(needle) != std::string::npos; });
}

bool is_set_with(const Command& command, char flag, std::string_view long_name)
{
  if (command.words.empty() || !command.words.front().known || command.words.front().text() != "set") {
    return false;
  }
  for (std::size_t i = 1; i < command.words.size(); ++i) {
    const std::string& w = command.words[i].text();
    if (w.starts_with("-") && !w.starts_with("--") && w.find(flag) != std::string::npos && w.find('o') == std::string::npos) {
      return true;
    }
    if (w == long_name) {
      return true;
    }
    if (w.starts_with("-") && w.find(flag) != std::string::npos && w.find('o') != std::string::npos) {
      return true;  // -euo pipefail: -e -u -o
    }
  }
  return false;
}

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
  if (errexit || (t.starts_with("#!") && t.substr(0, t.find('\n')).find(" -e") != std::string::npos)) {
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
  int errexit = -1;
  if (m.text.starts_with("#!")) {
    const std::string first = m.text.substr(0, m.text.find('\n'));
    if (first.find(" -e") != std::string::npos || first.find(" -xe") != std::string::npos
        || first.find(" -ex") != std::string::npos) {
      errexit = 0;
    }
  }
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

// `srun … | tee log`: the pipeline's status is tee's, so a failed training
// step ends the job COMPLETED (and retries or requeues never fire).
void pipe_without_pipefail(FindingContext& c)
{
  for (const auto& launch : c.model.launches) {
    const Command& command = c.model.commands[static_cast<std::size_t>(launch.command)];
    // srun lines, and the training launch whatever starts it (`deepspeed … | tee`).
    if (command.terminator != "|" || (!launch.has("srun") && &launch != c.job.launch)) {
      continue;
    }
    bool pipefail = false;
    for (const auto& before : c.model.commands) {
      if (before.begin < command.begin && is_set_with(before, '\0', "pipefail") && words_contain(before, "pipefail")) {
        pipefail = true;
      }
    }
    if (!pipefail) {
      const std::string tool = launch.stages.empty() ? basename_of(launch.program ? launch.program->text() : "")
                                                     : launch.stages.front().tool;
      c.add(Severity::warning, "audit.pipe_status",
            fmt::format("the launch line is piped (`{} … | …`) without `set -o pipefail`: a pipeline's status is its "
                        "last command's (bash(1), \"Pipelines\"), so a failed training run ends COMPLETED",
                        tool),
            "add `set -o pipefail` before the launch line", command.begin);
    }
  }
}

bool assigned_before(const ScriptModel& m, const std::string& name, int offset)
{
  return std::any_of(m.assignments.begin(), m.assignments.end(),
                     [&](const Assignment& a) { return a.name == name && a.offset < offset; });
}

// SBATCH_* are sbatch's input variables (read when submitting); the job sees
// SLURM_* instead (sbatch man page, "INPUT ENVIRONMENT VARIABLES").
void sbatch_input_variables(FindingContext& c)
{
  std::map<std::string, int> seen;
  for (const auto& use : c.model.uses) {
    if (!use.batch_shell || use.guarded || !use.name.starts_with("SBATCH_") || use.offset < 0
        || assigned_before(c.model, use.name, use.offset) || !seen.emplace(use.name, use.offset).second) {
      continue;
    }
    c.add(Severity::warning, "audit.sbatch_input_variable",
          fmt::format("${} is one of sbatch's input variables: it is not set inside the job unless the submitting "
                      "shell exported it, so it expands to nothing here",
                      use.name),
          "read the job's own SLURM_* variable instead (SLURM_JOB_NUM_NODES, SLURM_NTASKS_PER_NODE, "
          "SLURM_GPUS_ON_NODE …)",
          use.offset);
  }
}

// What another batch system sets for its jobs (Grid Engine's NHOSTS, NSLOTS,
// PE_HOSTFILE; PBS/Torque's PBS_*; LSF's LSB_*; Cobalt's COBALT_*): a Slurm
// job does not set them, so in a script sbatch runs they expand to nothing
// (`num_gpus=$((8 * ${NHOSTS}))` is then a syntax error).
bool other_scheduler_variable(const std::string& name)
{
  static constexpr std::array<std::string_view, 6> k_exact = {"NHOSTS", "NSLOTS", "PE_HOSTFILE", "SGE_TASK_ID",
                                                              "NQUEUES", "SGE_O_WORKDIR"};
  return name.starts_with("PBS_") || name.starts_with("LSB_") || name.starts_with("COBALT_")
         || std::find(k_exact.begin(), k_exact.end(), name) != k_exact.end();
}

void other_scheduler_variables(FindingContext& c)
{
  if (c.model.directives.empty()) {
    return;  // a script for several schedulers, or not a batch script: nothing says Slurm runs it
  }
  // A script that also carries another scheduler's directives (#PBS, #$,
  // #BSUB, #COBALT at a line start) is written for both.
  for (const char* other : {"\n#PBS", "\n#$ ", "\n#BSUB", "\n#COBALT"}) {
    if (c.model.text.find(other) != std::string::npos) {
      return;
    }
  }
  std::set<std::string> seen;
  for (const auto& use : c.model.uses) {
    if (!use.batch_shell || use.guarded || use.offset < 0 || !other_scheduler_variable(use.name)
        || assigned_before(c.model, use.name, use.offset) || !seen.insert(use.name).second) {
      continue;
    }
    // `[ -n "$PBS_JOBID" ]`, `test …`, `[[ … ]]`: asking which scheduler runs it.
    if (use.command >= 0 && static_cast<std::size_t>(use.command) < c.model.commands.size()) {
      const auto& words = c.model.commands[static_cast<std::size_t>(use.command)].words;
      if (!words.empty() && (words.front().text() == "[" || words.front().text() == "[[" || words.front().text() == "test")) {
        continue;
      }
    }
    c.add(Severity::warning, "audit.other_scheduler_variable",
          fmt::format("${} is set by another batch system (Grid Engine, PBS, LSF or Cobalt), not by Slurm: in a "
                      "job sbatch starts it is unset and expands to nothing",
                      use.name),
          "use Slurm's own variable (SLURM_JOB_NUM_NODES, SLURM_NTASKS, SLURM_JOB_NODELIST, SLURM_SUBMIT_DIR …)",
          use.offset);
  }
}

// The interpreter the first line names, when it is a POSIX sh ("sh", "dash",
// "/usr/bin/env sh"), else empty.
std::string posix_shell(const std::string& text)
{
  if (!text.starts_with("#!")) {
    return {};
  }
  std::string line = text.substr(2, text.find('\n') == std::string::npos ? std::string::npos : text.find('\n') - 2);
  std::vector<std::string> words;
  for (std::size_t i = 0; i < line.size();) {
    const auto b = line.find_first_not_of(" \t\r", i);
    if (b == std::string::npos) {
      break;
    }
    const auto e = std::min(line.find_first_of(" \t\r", b), line.size());
    words.push_back(line.substr(b, e - b));
    i = e;
  }
  if (words.empty()) {
    return {};
  }
  std::string program = basename_of(words[0]);
  if (program == "env" && words.size() > 1) {
    program = basename_of(words[1]);
  }
  return program == "sh" || program == "dash" ? words[0] : std::string();
}

// `#!/bin/sh` with bash syntax: slurmd executes the batch script itself, so
// the kernel runs the interpreter its #! line names (sbatch(1): the script's
// first line must name an interpreter). Where /bin/sh is dash (Debian,
// Ubuntu) `[[`, arrays and `source` fail ("[[: not found", "Syntax error:
// \"(\" unexpected"); where it is bash (RHEL) they work.
void bash_syntax_under_sh(FindingContext& c)
{
  const std::string shell = posix_shell(c.model.text);
  if (shell.empty()) {
    return;
  }
  int at = -1;
  std::string what;
  auto consider = [&](int offset, std::string feature) {
    if (offset >= 0 && (at < 0 || offset < at)) {
      at = offset;
      what = std::move(feature);
    }
  };
  static constexpr std::array<std::string_view, 7> k_bash_words = {"[[", "source", "declare", "typeset", "shopt",
                                                                   "pushd", "popd"};
  for (const auto& command : c.model.commands) {
    if (command.words.empty() || !command.words.front().known) {
      continue;
    }
    const std::string& first = command.words.front().text();
    if (std::find(k_bash_words.begin(), k_bash_words.end(), first) != k_bash_words.end()) {
      consider(command.words.front().offset, "`" + first + "`");
    }
  }
  for (const auto& a : c.model.assignments) {
    if (a.is_array && a.kind == AssignKind::assign) {
      consider(a.offset, "an array (`" + a.name + "=(…)`)");
    }
  }
  if (at < 0) {
    return;
  }
  c.add(Severity::warning, "audit.shell_mismatch",
        fmt::format("the script starts with #!{} but line {} uses bash syntax ({}): Slurm runs the batch script with "
                    "the interpreter its first line names, and where /bin/sh is dash (Debian, Ubuntu) the job stops "
                    "there; it works only where /bin/sh is bash",
                    shell, c.model.line_of(at), what),
        "start the script with #!/bin/bash", 0);
}

// `#!/bin/sh –l` with an en dash (U+2013; also an em dash or U+2212 minus,
// as word processors and web pages write "-"): the kernel passes `–l` to the
// interpreter as one argument, and sh/bash, seeing no '-', take it for the
// script file: the local Slurm 22.05 job prints "/bin/sh: 0: cannot open –l:
// No such file" and not one line of the script runs.
void shebang_argument(FindingContext& c)
{
  const std::string& t = c.model.text;
  if (!t.starts_with("#!")) {
    return;
  }
  const std::string line = t.substr(0, t.find('\n'));
  for (std::string_view dash : {"\xE2\x80\x93", "\xE2\x80\x94", "\xE2\x88\x92"}) {
    const auto at = line.find(dash);
    if (at == std::string::npos || at < 3 || (line[at - 1] != ' ' && line[at - 1] != '\t')) {
      continue;
    }
    const auto word_end = line.find_first_of(" \t\r", at);
    const std::string word = line.substr(at, word_end == std::string::npos ? std::string::npos : word_end - at);
    const std::string interpreter = line.substr(2, line.find_first_of(" \t", 2) - 2);
    c.add(Severity::error, "audit.shebang_argument",
          fmt::format("the first line passes `{}` to {}: its dash is a typographic one ({}), not '-', so {} takes it "
                      "for the script file and stops (\"cannot open {}\") before any line runs",
                      word, interpreter, dash == "\xE2\x80\x93" ? "U+2013 en dash" : dash == "\xE2\x80\x94" ? "U+2014 em dash" : "U+2212 minus",
                      interpreter, word),
          fmt::format("write `-{}` with the ASCII hyphen", word.substr(dash.size())), 0);
    return;
  }
}

// A batch script whose first two bytes are not `#!`: sbatch refuses it
// before submitting (the local Slurm 22.05: "This does not look like a batch
// script.  The first line must start with #! followed by the path to an
// interpreter.", for a script with no #! line and for one whose #! line
// follows blank lines; src/sbatch/sbatch.c checks the script's first bytes).
// Judged for scripts with #SBATCH lines (meant for sbatch); a UTF-8 byte
// order mark in front is named.
void missing_shebang(FindingContext& c)
{
  const std::string& t = c.model.text;
  if (t.starts_with("#!") || c.model.directives.empty()) {
    return;
  }
  std::string what;
  int at = 0;
  int drop = 0;  // --fix: the bytes in front of the #! line
  if (t.starts_with("\xEF\xBB\xBF")) {
    drop = t.compare(3, 2, "#!") == 0 ? 3 : 0;
    what = "the file starts with a UTF-8 byte order mark (EF BB BF), so its first line does not start with #!";
  } else if (const auto bang = t.find("#!"); bang != std::string::npos
             && t.find_first_not_of(" \t\r\n") == bang) {
    at = static_cast<int>(bang);
    drop = at;
    what = fmt::format("the #! line is line {}, after blank lines or spaces: sbatch looks at the file's first bytes",
                       c.model.line_of(at));
  } else {
    what = "the script has no #! line";
  }
  AuditFinding& f = c.add(Severity::error, "audit.no_shebang",
        fmt::format("{}; sbatch refuses it (\"This does not look like a batch script. The first line must start "
                    "with #! followed by the path to an interpreter.\") and nothing is submitted",
                    what),
        "make `#!/bin/bash` the file's very first line", at);
  if (drop > 0) {
    f.edits.push_back(Edit{0, drop, ""});
  }
}

bool positional(const std::string& name)
{
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; })
         && name != "0";
}

// `set -u` then $1: sbatch runs the script with the arguments given after its
// name, usually none, and bash stops at "unbound variable".
void nounset_positional(FindingContext& c)
{
  int nounset = -1;
  for (const auto& command : c.model.commands) {
    if (command.depth == 0 && is_set_with(command, 'u', "nounset")) {
      nounset = command.begin;
      break;
    }
  }
  if (nounset < 0) {
    return;
  }
  for (const auto& use : c.model.uses) {
    if (use.batch_shell && !use.guarded && positional(use.name) && use.offset > nounset
        && !c.model.in_function(use.offset)) {
      c.add(Severity::warning, "audit.nounset_positional",
            fmt::format("${} with `set -u` (line {}): `sbatch script.sh` passes no arguments, and bash stops "
                        "with \"{}: unbound variable\"",
                        use.name, c.model.line_of(nounset), use.name),
            fmt::format("use ${{{}:-default}} or ${{{}:?usage: …}}", use.name, use.name), use.offset);
      return;  // one is enough: the first stops the job
    }
  }
}

bool environment_name(const std::string& name)
{
  static constexpr std::array<std::string_view, 13> k_outside = {"HOME", "USER", "PATH", "PWD", "HOSTNAME", "TMPDIR",
                                                                  "SHELL", "LOGNAME", "LANG", "TERM", "IFS", "OLDPWD",
                                                                  "RANDOM"};
  return name.starts_with("SLURM_") || name.starts_with("SBATCH_") || runtime_variable(name)
         || std::find(k_outside.begin(), k_outside.end(), name) != k_outside.end();
}

// A top-level use of NAME before its first (top-level) assignment: it
// expands to the submitting environment's value or nothing, never the
// script's.
void use_before_assignment(FindingContext& c)
{
  const ScriptModel& m = c.model;
  std::map<std::string, const Assignment*> first;
  std::set<int> assigning;  // commands that assign a value (the use is in the value)
  for (const auto& a : m.assignments) {
    first.emplace(a.name, &a);
    if (a.kind == AssignKind::assign) {
      assigning.insert(a.command);
    }
  }
  std::map<std::string, bool> reported;
  for (const auto& use : m.uses) {
    if (!use.batch_shell || use.guarded || use.offset < 0 || use.command < 0 || positional(use.name)
        || environment_name(use.name) || reported[use.name]) {
      continue;
    }
    const auto it = first.find(use.name);
    if (it == first.end() || it->second->offset <= use.offset || it->second->command < 0
        || it->second->kind != AssignKind::assign || assigning.count(use.command) == 0) {
      continue;  // tests such as [ -z "$X" ] before a default are the usual guard, not a bug
    }
    const Command& used_in = m.commands[static_cast<std::size_t>(use.command)];
    const Command& set_in = m.commands[static_cast<std::size_t>(it->second->command)];
    if (used_in.depth != 0 || set_in.depth != 0) {
      continue;  // loops, branches and functions: order is not the text's order
    }
    reported[use.name] = true;
    c.add(Severity::warning, "audit.use_before_assignment",
          fmt::format("${} is used here but first assigned on line {}: here it expands to nothing (or to whatever "
                      "the submitting shell exported)",
                      use.name, m.line_of(it->second->offset)),
          fmt::format("move the assignment of {} above its first use", use.name), use.offset);
  }
}

// `trainer.max_steps=${MAX_STEPS}` in a script that sets the other values
// its launch uses but never MAX_STEPS (no assignment, read, default or
// test): unless the submitting shell exports it (sbatch's default
// --export=ALL), it expands to nothing: Hydra takes `key=` as an empty
// value, argparse stops with "expected one argument". Round 22's NeMo
// punctuation job (MAX_STEPS, and `WANDB="${wandb}"`). Judged only for a
// script that sets at least three of its launch's variables and leaves at
// most two unset (one that takes its values from the caller leaves many),
// with no `source` (a sourced file may set them).
void unset_variables(FindingContext& c)
{
  const ScriptModel& m = c.model;
  const Launch* l = c.job.launch;
  const bool sourced = std::any_of(m.sources.begin(), m.sources.end(), [&](int at) { return !activation(m, at); });
  if (l == nullptr || l->command < 0 || sourced || l->sources || !c.job.environment_complete) {
    return;
  }
  std::set<std::string> assigned;
  for (const auto& a : m.assignments) {
    assigned.insert(a.name);
  }
  // Loop and read variables are set too (`for i in …`, `read -r x`,
  // `getopts ab opt`, `select`).
  for (const Command& command : m.commands) {
    const auto& w = command.words;
    if (w.size() >= 2 && w[0].known && (w[0].text() == "for" || w[0].text() == "select")) {
      assigned.insert(w[1].text());
    }
    if (!w.empty() && w[0].known && (w[0].text() == "read" || w[0].text() == "getopts" || w[0].text() == "mapfile"
                                     || w[0].text() == "readarray")) {
      for (std::size_t i = 1; i < w.size(); ++i) {
        assigned.insert(w[i].text());
      }
    }
  }
  const auto special = [](const std::string& name) {
    return name.size() == 1 && std::string_view("@*#?$!-0_").find(name[0]) != std::string_view::npos;
  };
  // `--export "NAME=${NAME}"`: the caller's value passed on by name, on purpose.
  const auto passed_on = [&](const VarUse& u) {
    const auto dollar = m.text.rfind('$', static_cast<std::size_t>(u.offset));
    const std::string before = u.name + "=";
    return dollar != std::string::npos && dollar >= before.size()
           && m.text.compare(dollar - before.size(), before.size(), before) == 0;
  };
  // Where an empty value breaks something: after `key=` or `--flag=`, or as
  // the word after a `--flag`; not a word of its own (`srun $ADDITIONAL_FLAGS
  // …`, an optional hook that, empty, expands to no word: round 26's
  // MegaMolBART template), nor a name that says it holds options.
  const auto value_position = [&](const VarUse& u) {
    if (u.name.ends_with("_FLAGS") || u.name.ends_with("_ARGS") || u.name.ends_with("_OPTS")
        || u.name.starts_with("EXTRA_") || u.name.ends_with("_OPTIONS")) {
      return false;
    }
    auto dollar = m.text.rfind('$', static_cast<std::size_t>(u.offset));
    if (dollar == std::string::npos) {
      return false;
    }
    // `$DIR/train.py`, a path built on it (empty, it starts at `/`), where
    // the script's own assignment of DIR is commented out (`#DIR=…`, round
    // 24's ACCELERATE_DIR); without that, a directory the caller exports
    // (Megatron-LM's SC21 scripts take MEGATRON_CODE_DIR from their caller).
    const std::size_t after = m.text[dollar + 1] == '{' ? m.text.find('}', dollar) + 1 : dollar + 1 + u.name.size();
    if (after < m.text.size() && m.text[after] == '/' && dollar > 0
        && std::string_view(" \t\"'=").find(m.text[dollar - 1]) != std::string_view::npos) {
      for (std::size_t at = 0; at < m.text.size();) {
        const auto eol = std::min(m.text.find('\n', at), m.text.size());
        const auto first = m.text.find_first_not_of(" \t", at);
        if (first != std::string::npos && first < eol && m.text[first] == '#') {
          const std::string line = m.text.substr(first, eol - first);
          for (auto p = line.find(u.name + "="); p != std::string::npos; p = line.find(u.name + "=", p + 1)) {
            if (p > 0 && (std::isalnum(static_cast<unsigned char>(line[p - 1])) == 0 && line[p - 1] != '_')) {
              return true;  // `#  export NAME=…`, `# NAME=…`
            }
          }
        }
        at = eol + 1;
      }
      return false;
    }
    std::size_t k = dollar;
    while (k > 0 && (m.text[k - 1] == '"' || m.text[k - 1] == '\'')) {
      --k;
    }
    if (k > 0 && m.text[k - 1] == '=') {
      return true;  // key=${X}, --flag=${X}
    }
    if (k == 0 || (m.text[k - 1] != ' ' && m.text[k - 1] != '\t')) {
      return false;  // inside a longer word: a path part, a suffix
    }
    // The word before: an option that takes this as its value.
    std::size_t end = k;
    while (end > 0 && (m.text[end - 1] == ' ' || m.text[end - 1] == '\t')) {
      --end;
    }
    std::size_t begin = end;
    while (begin > 0 && m.text[begin - 1] != ' ' && m.text[begin - 1] != '\t' && m.text[begin - 1] != '\n') {
      --begin;
    }
    const std::string before = m.text.substr(begin, end - begin);
    return before.starts_with("-") && before.find('=') == std::string::npos;
  };
  // `for NAME in …` (the loop's words are not a command of their own).
  const auto loop_variable = [&](const std::string& name) {
    for (auto at = m.text.find("for " + name); at != std::string::npos; at = m.text.find("for " + name, at + 1)) {
      const auto after = at + 4 + name.size();
      if ((at == 0 || std::isspace(static_cast<unsigned char>(m.text[at - 1])) != 0 || m.text[at - 1] == ';')
          && after < m.text.size() && (m.text[after] == ' ' || m.text[after] == ';' || m.text[after] == '\n')) {
        return true;
      }
    }
    return false;
  };
  // Names tested or defaulted anywhere are handled by the script.
  std::set<std::string> handled;
  for (const auto* uses : {&m.uses, &m.heredoc_uses}) {
    for (const auto& u : *uses) {
      const bool test = u.command >= 0 && !m.commands[static_cast<std::size_t>(u.command)].words.empty()
                        && (m.commands[static_cast<std::size_t>(u.command)].words.front().text() == "["
                            || m.commands[static_cast<std::size_t>(u.command)].words.front().text() == "[["
                            || m.commands[static_cast<std::size_t>(u.command)].words.front().text() == "test");
      if (u.guarded || test) {
        handled.insert(u.name);
      }
    }
  }
  // The launch's uses: on its command, or in the value of a variable it
  // expands (one level: `CMD="… ${MAX_STEPS} …"`, a heredoc read into it).
  std::set<std::string> through;
  for (const Word& w : m.commands[static_cast<std::size_t>(l->command)].words) {
    through.insert(w.expanded.begin(), w.expanded.end());
  }
  // Followed three levels down: `WANDB="${wandb}"`, WANDB in the command
  // text `cmd`, cmd on the launch.
  std::vector<std::pair<int, int>> ranges;
  for (int level = 0; level < 3; ++level) {
    ranges.clear();
    for (const auto& a : m.assignments) {
      if (through.count(a.name) != 0 && a.value_offset >= 0 && a.value_end > a.value_offset) {
        ranges.emplace_back(a.value_offset, a.value_end);
      }
    }
    for (const auto& h : m.heredocs) {
      // `read -r -d '' cmd <<EOF`: the body is cmd's value.
      const auto line_begin = m.text.rfind('\n', static_cast<std::size_t>(std::max(0, h.first - 2)));
      const std::size_t from = line_begin == std::string::npos ? 0 : line_begin + 1;
      const std::string opener = m.text.substr(from, static_cast<std::size_t>(h.first) - from);
      for (const std::string& name : through) {
        if (opener.find("read ") != std::string::npos && opener.find(" " + name + " ") != std::string::npos) {
          ranges.push_back(h);
        }
      }
    }
    for (const auto* uses : {&m.uses, &m.heredoc_uses}) {
      for (const auto& u : *uses) {
        if (std::any_of(ranges.begin(), ranges.end(),
                        [&](const auto& r) { return u.offset >= r.first && u.offset < r.second; })) {
          through.insert(u.name);
        }
      }
    }
  }
  const Command& launch = m.commands[static_cast<std::size_t>(l->command)];
  std::vector<const VarUse*> unset;
  std::set<std::string> set_names;
  std::set<std::string> unset_names;
  for (const auto* uses : {&m.uses, &m.heredoc_uses}) {
    for (const auto& u : *uses) {
      const bool on_launch = u.offset >= launch.begin && u.offset < launch.end;
      const bool in_value = std::any_of(ranges.begin(), ranges.end(),
                                        [&](const auto& r) { return u.offset >= r.first && u.offset < r.second; });
      if ((!on_launch && !in_value) || u.offset < 0 || !u.batch_shell || positional(u.name) || special(u.name)
          || m.in_function(u.offset) || passed_on(u)) {
        continue;
      }
      if (assigned.count(u.name) != 0) {
        set_names.insert(u.name);
      } else if (!environment_name(u.name) && handled.count(u.name) == 0 && !loop_variable(u.name)
                 && value_position(u) && unset_names.insert(u.name).second) {
        unset.push_back(&u);
      }
    }
  }
  if (set_names.size() < 3 || unset.empty() || unset.size() > 2) {
    return;
  }
  for (const VarUse* u : unset) {
    c.add(Severity::warning, "audit.unset_variable",
          fmt::format("${} is never set in the script, which sets the {} other variables its launch uses: unless "
                      "the submitting shell exports it, it expands to nothing here (a `key=` override gets an "
                      "empty value, `--flag ${}` takes the next word or stops the parser)",
                      u->name, set_names.size(), u->name),
          fmt::format("set {} in the script, or make the dependence explicit: {}=\"${{{}:?export {} before "
                      "sbatch}}\"",
                      u->name, u->name, u->name, u->name),
          u->offset);
  }
}

// The launch line runs something the audit cannot look into: the script's
// own arguments ("$@"), a command built at run time, or a container runtime
// or shell that runs another file. Said once, as advice, instead of a silent pass.
std::optional<std::string> unread_program(const Launch& l, const ScriptModel& m)
{
  if (!l.program) {
    return std::nullopt;
  }
  const Word& p = *l.program;
  const std::string& t = p.text();
  if (l.python && t != "${@}" && t != "$@" && t != "${*}" && t != "$*") {
    return std::nullopt;
  }
  const std::string first = t.substr(0, t.find(' '));
  const std::string base = first.substr(first.rfind('/') == std::string::npos ? 0 : first.rfind('/') + 1);
  // apptainer/singularity exec are wrapper stages (launch.cpp reads the command
  // they run); these hand the work to another program or file.
  static constexpr std::array<std::string_view, 5> k_runners = {"docker", "podman", "enroot", "bash", "sh"};
  // `srun bash train.sh`: the shell is a stage of the chain, the file its
  // program (not the text of a `bash -c` whose launch could not be read).
  const bool shell_file = !l.stages.empty() && l.stages.back().tool == "bash" && p.known
                          && t.find_first_of(" \t\n;") == std::string::npos;
  // `srun launch_training.sh`: a shell script run directly is another file too.
  const bool script_file = p.known && !l.python && (base.ends_with(".sh") || base.ends_with(".bash"));
  const bool runner = shell_file || script_file || std::find(k_runners.begin(), k_runners.end(), base) != k_runners.end();
  if (t == "${@}" || t == "$@" || t == "${*}" || t == "$*") {
    if (l.command >= 0 && m.in_function(m.commands[static_cast<std::size_t>(l.command)].begin)) {
      return std::string("the arguments of the function it is in (\"$@\"/\"$*\"), given where the function is "
                         "called");
    }
    if (!l.args.empty() && !l.stages.empty() && l.stages.back().tool == "srun") {
      // `srun "$@" sh -c '…'`: the arguments may be srun's options or the command.
      return fmt::format("the script's own arguments (\"$@\") in front of `{}`: they may be srun's options or the "
                         "command, so what runs is unknown",
                         l.args.front().text().substr(0, l.args.front().text().find(' ')));
    }
    return std::string("the script's own arguments (\"$@\")");
  }
  if (!runner && p.known) {
    return std::nullopt;
  }
  std::string tools;
  for (const auto& stage : l.stages) {
    tools += stage.tool + " … ";
  }
  if (runner && p.known) {
    return fmt::format("`{}{} …`, which runs another program or file", tools, first);
  }
  return fmt::format("`{}` with a command built when the job runs{}", tools + "\"…\"",
                     runner ? fmt::format(" (it starts with `{}`)", first) : "");
}

// `python gen_host_file.py` then `bash run_train.sh` (or `srun bash …`): the
// Python line read as the launch is a helper when a later command hands the
// work to another file, which the audit does not read. The offset of the
// command that runs that file, or -1.
int later_handoff(const FindingContext& c)
{
  const Launch& l = *c.job.launch;
  // `python x.py` on the batch host alone: no srun and no launcher (torchrun,
  // deepspeed, accelerate) in the chain. `srun python train.py` is a training.
  const bool bare =
    std::all_of(l.stages.begin(), l.stages.end(), [](const LaunchStage& s) { return s.tool == "python"; });
  // Both at the top level, one after the other: a helper and a hand-off in
  // branches or loops (a compliance check, a core-dump step) are not this shape.
  if (c.job.megatron || !l.python || !bare || l.command < 0
      || c.model.commands[static_cast<std::size_t>(l.command)].depth != 0) {
    return -1;
  }
  const int after = c.model.commands[static_cast<std::size_t>(l.command)].end;
  for (const auto& other : c.model.launches) {
    if (&other == &l || other.command < 0) {
      continue;
    }
    const Command& command = c.model.commands[static_cast<std::size_t>(other.command)];
    if (command.begin >= after && command.depth == 0 && unread_program(other, c.model)) {
      return command.begin;
    }
  }
  for (const auto& command : c.model.commands) {
    if (command.begin < after || command.depth != 0 || command.words.size() < 2 || !command.words[0].known
        || !command.words[1].known) {
      continue;
    }
    const std::string tool = command.words[0].text();
    const std::string file = command.words[1].text();
    // A top-level `bash FILE` after the helper: only on several nodes, where a
    // Python program on the batch host alone is not the job's training; on one
    // node `python train.py` then `bash eval.sh` is as likely.
    if ((tool == "bash" || tool == "sh") && !file.starts_with("-") && c.job.nodes > 1) {
      return command.begin;
    }
  }
  return -1;
}

// The no-launch advice names what it did see where that is a command the
// audit does not follow: `docker run IMAGE CMD` (the container's command is
// not read) or a command whose program is the script's own arguments
// (`exec "$@" train.py …`: the launcher comes from the caller). Round 19's
// docker array job and Megatron `exec "$@"` script got the generic text on
// line 1. True if reported.
bool unread_container_or_caller(FindingContext& c)
{
  const std::string& t = c.model.text;
  for (const Command& command : c.model.commands) {
    const auto& w = command.words;
    std::size_t first = 0;
    while (first < w.size() && w[first].known && w[first].text() == "exec") {
      ++first;
    }
    if (first >= w.size()) {
      continue;
    }
    const std::string head = w[first].known ? basename_of(w[first].text()) : "";
    if (first + 1 < w.size() && (head == "docker" || head == "podman") && w[first + 1].known
        && w[first + 1].text() == "run") {
      c.add(Severity::advice, "audit.no_launch",
            fmt::format("no training launch line was read: line {} runs `{} run`, and the command it gives the "
                        "container is not read as a launch; parallelism, environment and memory were not checked",
                        c.model.line_of(command.begin), head),
            "run `launchguard check` on the job, or audit the script the container runs", command.begin);
      return true;
    }
    const int at = w[first].offset;
    const bool caller = !w[first].known && at >= 0
                        && (t.compare(static_cast<std::size_t>(at), 4, "\"$@\"") == 0
                            || t.compare(static_cast<std::size_t>(at), 2, "$@") == 0
                            || t.compare(static_cast<std::size_t>(at), 4, "\"$*\"") == 0);
    if (caller && !c.model.in_function(at)) {
      const auto script = std::find_if(w.begin() + static_cast<std::ptrdiff_t>(first) + 1, w.end(),
                                       [](const Word& x) { return x.text().ends_with(".py"); });
      c.add(Severity::advice, "audit.no_launch",
            fmt::format("no training launch line was read: line {} runs the launcher the script's caller passes "
                        "(`\"$@\"`){}; parallelism, environment and memory were not checked",
                        c.model.line_of(command.begin),
                        script != w.end() ? fmt::format(" on {}", basename_of(script->text())) : ""),
            "audit the script that calls this one with its launcher, or run `launchguard check` on the job",
            command.begin);
      return true;
    }
  }
  return false;
}

void no_training_launch(FindingContext& c)
{
  if (c.job.launch != nullptr && !c.options.template_mode) {
    if (const int handoff = later_handoff(c); handoff >= 0) {
      const Command& helper = c.model.commands[static_cast<std::size_t>(c.job.launch->command)];
      const auto at = static_cast<std::size_t>(handoff);
      const auto eol = std::min(c.model.text.find('\n', at), c.model.text.size());
      c.add(
        Severity::advice, "audit.no_launch",
        fmt::format("the training is probably not line {}'s `python {}`, which the audit read as the launch: line {} "
                    "then runs `{}`, a file the audit does not read; parallelism, environment and memory were not "
                    "checked",
                    c.model.line_of(helper.begin), c.job.launch->program ? c.job.launch->program->text() : "…",
                    c.model.line_of(handoff), c.model.text.substr(at, eol - at)),
        "audit the script that starts the training", handoff);
      return;
    }
    if (const auto what = unread_program(*c.job.launch, c.model)) {
      // A program that came from a variable has the offset of its value;
      // the finding belongs on the launch line.
      const Launch& l = *c.job.launch;
      int at = l.program->offset;
      if (l.command >= 0) {
        const Command& cmd = c.model.commands[static_cast<std::size_t>(l.command)];
        if (at < cmd.begin || at >= cmd.end) {
          at = cmd.begin;
        }
      }
      c.add(Severity::advice, "audit.no_launch",
            fmt::format("no training program was read: the launch line runs {}; parallelism, environment and memory "
                        "were not checked",
                        *what),
            "run `launchguard check` on the job, or audit the script that starts the training", at);
    }
    return;
  }
  if (c.job.launch != nullptr || c.model.commands.empty() || c.options.template_mode) {
    return;
  }
  if (unread_container_or_caller(c)) {
    return;
  }
  c.add(Severity::advice, "audit.no_launch",
        "no training launch line was read (no srun/torchrun/python/deepspeed command found, or it is built in a way "
        "the audit cannot follow): parallelism, environment and memory were not checked",
        "run `launchguard check` on the job, or write the launch line in the script", -1);
}

} // namespace

void shell_findings(FindingContext& context)
{
  crlf(context);
  directive_findings(context);
  prefix_on_builtin(context);
  pipe_without_pipefail(context);
  errexit_status(context);
  script_directory(context);
  exit_in_substitution(context);
  sbatch_input_variables(context);
  other_scheduler_variables(context);
  bash_syntax_under_sh(context);
  shebang_argument(context);
  missing_shebang(context);
  nounset_positional(context);
  use_before_assignment(context);
  unset_variables(context);
  self_reference_findings(context);
  word_findings(context);
  no_training_launch(context);
}

} // namespace lg::audit::detail
