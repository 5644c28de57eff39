// The status a batch job ends with. Slurm records the job's exit code as the
// batch script's (sbatch(1): the job's state is COMPLETED when the script
// exits 0), and a script's status is its last command's. `srun a & srun b &
// wait` ends with `wait`, and bash(1) says of `wait` with no ID: "all
// currently active child processes are waited for, and the return status is
// zero". So the job is COMPLETED whatever its steps did: `--dependency=afterok`
// jobs start, failure mails are not sent, and a retry wrapper sees success.
// On the local Slurm 22.05, `srun false & srun true & wait` gives a job
// COMPLETED 0:0 with a FAILED step.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace lg::audit::detail {

namespace {

bool bare_wait(const Command& command)
{
  return command.words.size() == 1 && command.words.front().known && command.words.front().text() == "wait";
}

// Bookkeeping after the wait that neither reads the status nor sets one of
// its own worth keeping: echo, date, printf … without `$?`, `exit` or
// `exit 0`.
bool bookkeeping(const ScriptModel& model, const Command& command)
{
  static constexpr std::array<std::string_view, 8> k_quick = {"echo", "printf", "date", "true", ":",
                                                              "hostname", "sleep", "sync"};
  if (command.words.empty()) {
    return false;  // an assignment may keep a status (`rc=$?`)
  }
  const Word& first = command.words.front();
  if (first.known && first.text() == "exit") {
    // `exit` alone returns the last status (wait's 0), `exit 0` says it
    return command.words.size() == 1 || (command.words.size() == 2 && command.words[1].known
                                         && command.words[1].text() == "0");
  }
  if (!first.known || std::find(k_quick.begin(), k_quick.end(), first.text()) == k_quick.end()) {
    return false;
  }
  const auto begin = static_cast<std::size_t>(command.begin);
  const auto end = static_cast<std::size_t>(std::max(command.begin, command.end));
  return model.text.substr(begin, end - begin).find("$?") == std::string::npos;
}

// A step started in the background: a launch, or srun/ssh/pdsh/mpirun/a
// container runtime, with `&` after its pipeline.
bool background_step(const ScriptModel& model, std::size_t index)
{
  static constexpr std::array<std::string_view, 9> k_steps = {
    "srun", "ssh", "pdsh", "mpirun", "mpiexec", "docker", "singularity", "apptainer", "enroot"};
  const Command& command = model.commands[index];
  if (model.commands[pipeline_end(model, index)].terminator != "&" || command.words.empty()
      || !command.words.front().known) {
    return false;
  }
  const std::string& first = command.words.front().text();
  const std::string_view base = std::string_view(first).substr(first.rfind('/') + 1);
  if (std::find(k_steps.begin(), k_steps.end(), base) != k_steps.end()) {
    return true;
  }
  return std::any_of(model.launches.begin(), model.launches.end(),
                     [index](const Launch& l) { return l.command == static_cast<int>(index); });
}

// `srun python train.py` then only `echo "done"` (held-out round 31's Pleias
// job): the script's status is echo's 0, so a failed training ends COMPLETED
// (sbatch(1): the job's exit code is the script's). Not under `set -e`
// (errexit ends the script at the failed launch), nor when anything after the
// launch reads `$?`, nor for a launch in a pipeline or a list (`|| exit`),
// nor in the background (audit.wait_status). Advice: the run itself is not
// harmed, only what reads the job's state.
void trailing_status(FindingContext& c)
{
  const ScriptModel& m = c.model;
  const Launch* l = c.job.launch;
  if (l == nullptr || shebang_errexit(m.text)) {
    return;
  }
  const std::size_t launch = static_cast<std::size_t>(l->command);
  const Command& command = m.commands[launch];
  const std::size_t end = pipeline_end(m, launch);
  const std::string& terminator = m.commands[end].terminator;
  if (command.depth != 0 || m.in_function(command.begin) || end != launch
      || (terminator != "\n" && terminator != ";" && !terminator.empty())
      || (launch > 0 && (m.commands[launch - 1].terminator == "&&" || m.commands[launch - 1].terminator == "||"))) {
    return;
  }
  for (std::size_t k = 0; k < launch; ++k) {
    if (m.commands[k].depth == 0 && is_set_with(m.commands[k], 'e', "errexit")) {
      return;
    }
  }
  std::size_t after = 0;
  std::string first;
  for (std::size_t k = launch + 1; k < m.commands.size(); ++k) {
    if (m.in_function(m.commands[k].begin)) {
      continue;
    }
    // `export NAME=…` returns 0 as well (and audit.export_after_launch says
    // it comes too late); `--fix` moves it above the launch, which must not
    // bring this finding in as a new one.
    const Command& each = m.commands[k];
    const std::string text = m.text.substr(static_cast<std::size_t>(each.begin),
                                           static_cast<std::size_t>(std::max(each.begin, each.end) - each.begin));
    const bool late_export = text.starts_with("export ") && text.find("$?") == std::string::npos
                             && text.find("$(") == std::string::npos && text.find('`') == std::string::npos;
    if (!bookkeeping(m, each) && !late_export) {
      return;
    }
    if (after++ == 0) {
      first = each.words.empty() ? std::string("export") : each.words.front().text();
    }
  }
  if (after == 0) {
    return;
  }
  c.add(Severity::advice, "audit.trailing_status",
        fmt::format("after the training launch the script runs only `{}`{}: the job's exit status is the last "
                    "command's, so a failed training still ends COMPLETED (afterok dependencies start, failure mails "
                    "are not sent, a retry wrapper sees success)",
                    first, after > 1 ? " and the like" : ""),
        "keep the launch's status: `srun … ; rc=$?` … `exit $rc`, or `set -e` before the launch",
        m.commands[launch + 1].begin);
}

}  // namespace

void job_status_findings(FindingContext& c)
{
  trailing_status(c);
  const ScriptModel& m = c.model;
  if (m.directives.empty() || m.commands.empty()) {
    return;  // not known to be a batch script
  }
  // The script's end: skip trailing bookkeeping, then a bare `wait`.
  std::size_t i = m.commands.size();
  while (i > 0 && (m.in_function(m.commands[i - 1].begin) || bookkeeping(m, m.commands[i - 1]))) {
    --i;
  }
  if (i == 0 || !bare_wait(m.commands[i - 1]) || m.in_function(m.commands[i - 1].begin)) {
    return;
  }
  const std::size_t wait = i - 1;
  if (wait > 0 && (m.commands[wait - 1].terminator == "&&" || m.commands[wait - 1].terminator == "||")) {
    return;  // `… || wait`: not simply the last command
  }
  int steps = 0;
  for (std::size_t k = 0; k < wait; ++k) {
    if (!m.in_function(m.commands[k].begin) && background_step(m, k)) {
      ++steps;
    }
  }
  if (steps == 0) {
    return;
  }
  c.add(Severity::warning, "audit.wait_status",
        fmt::format("the script ends with a bare `wait` after {}: `wait` with no ID returns 0 whatever the "
                    "steps exit with (bash(1)), so the job is recorded COMPLETED even when training fails "
                    "(afterok dependencies start, failure mails are not sent, a retry loop sees success)",
                    steps == 1 ? "a step started in the background" : fmt::format("{} steps started in the background", steps)),
        "keep each PID (`srun … & pids+=($!)`) and wait for each, keeping the status: "
        "`rc=0; for p in \"${pids[@]}\"; do wait \"$p\" || rc=$?; done; exit $rc`",
        m.commands[wait].begin);
}

}  // namespace lg::audit::detail
