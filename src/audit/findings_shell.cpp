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

bool positional(const std::string& name)
{
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; })
         && name != "0";
}

bool environment_name(const std::string& name)
{
  static constexpr std::array<std::string_view, 13> k_outside = {"HOME", "USER", "PATH", "PWD", "HOSTNAME", "TMPDIR",
                                                                  "SHELL", "LOGNAME", "LANG", "TERM", "IFS", "OLDPWD",
                                                                  "RANDOM"};
  return name.starts_with("SLURM_") || name.starts_with("SBATCH_") || runtime_variable(name)
         || std::find(k_outside.begin(), k_outside.end(), name) != k_outside.end();
}

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






} // namespace

void shell_findings(FindingContext& context)
{
  crlf(context);
  directive_findings(context);
  prefix_on_builtin(context);
  pipe_without_pipefail(context);
  exit_status_findings(context);
  sbatch_input_variables(context);
  other_scheduler_variables(context);
  bash_syntax_under_sh(context);
  shebang_argument(context);
  missing_shebang(context);
  nounset_positional(context);
  use_before_assignment(context);
  unset_variable_findings(context);
  self_reference_findings(context);
  word_findings(context);
  no_launch_findings(context);
}

} // namespace lg::audit::detail
