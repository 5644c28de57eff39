// --signal against the trainer's handler: Megatron-LM's --exit-signal-handler
// listens for --exit-signal (default SIGTERM); Slurm sends nothing before the
// time limit unless #SBATCH --signal asks, and B: sends only to the batch shell.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace lg::audit::detail {

namespace {

std::string signal_name(std::string text)
{
  for (char& ch : text) {
    ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  }
  if (text.starts_with("SIG")) {
    text.erase(0, 3);
  }
  if (text == "15") {
    return "TERM";
  }
  if (text == "10") {
    return "USR1";
  }
  if (text == "12") {
    return "USR2";
  }
  if (text == "2") {
    return "INT";
  }
  return text == "1" ? "HUP" : text;
}

bool has_trap(const ScriptModel& model)
{
  for (const auto& command : model.commands) {
    if (!command.words.empty() && command.words[0].text() == "trap") {
      return true;
    }
  }
  return false;
}

// Signals whose default action is to terminate the process (signal(7)):
// a shell without a trap for one of them dies when it arrives.
bool terminates_by_default(const std::string& name)
{
  static constexpr std::array<std::string_view, 9> k_terminating = {"USR1", "USR2", "TERM", "INT", "HUP",
                                                                      "QUIT", "ALRM", "PIPE", "XCPU"};
  return std::find(k_terminating.begin(), k_terminating.end(), name) != k_terminating.end();
}

// `#SBATCH --signal=B:USR1@60` and no `trap`: Slurm sends the signal to the
// batch shell only (sbatch(1), --signal "B:"), whose default action is to
// die; when the batch script ends, Slurm ends the job and the steps it was
// running (so the program, Megatron or not, is killed without a checkpoint).
// Returns whether it reported.
bool batch_signal_untrapped(FindingContext& c)
{
  const Directive* d = c.model.directive("signal");
  if (d == nullptr || !d->has_value || !d->value.starts_with("B:") || has_trap(c.model)) {
    return false;
  }
  const std::string value = d->value.substr(2);
  const std::string sent = signal_name(value.substr(0, value.find('@')));
  if (!terminates_by_default(sent)) {
    return false;
  }
  const auto at = value.find('@');
  c.add(Severity::warning, "audit.signal",
        fmt::format("#SBATCH --signal=B:… sends SIG{} to the batch shell only, and the script has no trap: the "
                    "shell dies of it (the default action){}, the job ends there and its steps are killed, so the "
                    "training processes never see the signal",
                    sent, at == std::string::npos ? "" : fmt::format(" {} s before the time limit", value.substr(at + 1))),
        fmt::format("drop the B: prefix (Slurm then signals the job steps), or `trap 'kill -{} $PID; wait' {}` "
                    "around a backgrounded launch",
                    sent, sent),
        d->value_offset);
  return true;
}

// The offset of the first `trap BODY SIG…` that handles `sent`, or -1.
int trap_for(const ScriptModel& model, const std::string& sent)
{
  for (const auto& command : model.commands) {
    if (command.words.size() < 3 || command.words[0].text() != "trap") {
      continue;
    }
    std::size_t i = 1;
    while (i < command.words.size() && command.words[i].text().starts_with("-")) {
      ++i;  // trap -- BODY SIG
    }
    for (std::size_t s = i + 1; s < command.words.size(); ++s) {
      if (command.words[s].known && signal_name(command.words[s].text()) == sent) {
        return command.begin;
      }
    }
  }
  return -1;
}

// `#SBATCH --signal=B:USR2@600` and `trap '…' USR2`, with the training launch
// run in the foreground: "If bash is waiting for a command to complete and
// receives a signal for which a trap has been set, the trap will not be
// executed until the command completes" (bash(1), SIGNALS). Slurm sends the
// signal to the batch shell only, which is waiting for srun, so the handler
// runs after the steps end (at the time limit, too late for what it was
// meant to do). Left alone: any launch started with `&` (`wait` returns at
// once when a trapped signal arrives, the same section).
void trap_deferred(FindingContext& c)
{
  const Directive* d = c.model.directive("signal");
  if (d == nullptr || !d->has_value || !d->value.starts_with("B:")) {
    return;
  }
  const std::string value = d->value.substr(2);
  const std::string sent = signal_name(value.substr(0, value.find('@')));
  const int trap = trap_for(c.model, sent);
  const Launch* l = c.job.launch;
  if (l == nullptr) {
    for (const auto& candidate : c.model.launches) {
      if (candidate.has("srun")) {
        l = &candidate;  // the last srun line
      }
    }
  }
  if (trap < 0 || l == nullptr) {
    return;
  }
  for (const auto& launch : c.model.launches) {
    if (c.model.commands[static_cast<std::size_t>(launch.command)].terminator == "&") {
      return;
    }
  }
  const Command& command = c.model.commands[static_cast<std::size_t>(l->command)];
  if (command.begin < trap) {
    return;
  }
  const auto at = value.find('@');
  c.add(Severity::warning, "audit.trap_deferred",
        fmt::format("#SBATCH --signal=B:{} sends SIG{} to the batch shell{}, and its trap (line {}) runs only when "
                    "the foreground command it is waiting for ends: bash defers traps until then (bash(1), SIGNALS), "
                    "so the handler runs after this launch has finished, not when the signal arrives",
                    value, sent,
                    at == std::string::npos ? "" : fmt::format(" {} s before the time limit", value.substr(at + 1)),
                    c.model.line_of(trap)),
        "start the launch in the background and wait for its PID (`srun … & pid=$!; wait \"$pid\"`): wait returns "
        "as soon as a trapped signal arrives, and the trap runs; `wait \"$pid\"` again afterwards gives the step's "
        "exit status, which a bare `wait` drops",
        command.begin);
}

// Code that says the program is PyTorch Lightning: its CLI (`lightning run
// model …`, `fabric run …`) or LightningCLI options (`--trainer.devices=8`).
// A file name is not evidence; a comment is said as a condition
// (lightning_comment).
const Word* lightning_evidence(const ScriptModel& model)
{
  for (const auto& l : model.launches) {
    if (!l.program || !l.program->known) {
      continue;
    }
    const std::string base = l.program->text().substr(l.program->text().rfind('/') + 1);
    if ((base == "lightning" || base == "fabric") && !l.args.empty() && l.args.front().text() == "run") {
      return &*l.program;
    }
    for (const auto& a : l.args) {
      if (a.known && a.text().starts_with("--trainer.")) {
        return &a;
      }
    }
  }
  return nullptr;
}

// A comment line that names Lightning ("# launching Lightning-based
// programs", "# PTL doesn't need a special launcher"): not proof that the
// program is Lightning, so what it supports is said as a condition. Offset
// of the line, or -1.
int lightning_comment(const ScriptModel& model)
{
  for (std::size_t l = 0; l < model.line_starts.size(); ++l) {
    const auto begin = static_cast<std::size_t>(model.line_starts[l]);
    const auto first = model.text.find_first_not_of(" \t", begin);
    if (first == std::string::npos || model.text[first] != '#' || model.text.compare(first, 2, "#!") == 0
        || model.text.compare(first, 7, "#SBATCH") == 0) {
      continue;
    }
    const auto eol = model.text.find('\n', first);
    const std::string line = model.text.substr(first, eol == std::string::npos ? std::string::npos : eol - first);
    auto word = [&](std::string_view w) {
      const auto at = line.find(w);
      return at != std::string::npos && (at == 0 || std::isalnum(static_cast<unsigned char>(line[at - 1])) == 0)
             && (at + w.size() >= line.size() || std::isalnum(static_cast<unsigned char>(line[at + w.size()])) == 0);
    };
    if (word("Lightning") || word("PTL") || word("pytorch_lightning") || word("lightning.pytorch")) {
      return static_cast<int>(first);
    }
  }
  return -1;
}

// Lightning's SLURM auto-requeue (SLURMEnvironment, requeue signal SIGUSR1)
// saves a checkpoint and resubmits only when that signal arrives; Slurm sends
// it only if asked (Lightning docs, "Run on a SLURM-managed cluster": "#SBATCH
// --signal=SIGUSR1@90"). Advice: the run may not mean to be requeued.
void lightning_signal(FindingContext& c)
{
  if (c.model.directive("signal") != nullptr || c.model.directives.empty()) {
    return;
  }
  if (const Word* evidence = lightning_evidence(c.model)) {
    c.add(Severity::advice, "audit.signal",
          "the program is PyTorch Lightning, whose SLURM auto-requeue checkpoints and resubmits the job when "
          "SIGUSR1 arrives, but no #SBATCH --signal asks Slurm to send it: at the time limit the run is killed "
          "without that checkpoint",
          "add #SBATCH --signal=SIGUSR1@90 (seconds before the limit; allow for a checkpoint save)",
          evidence->offset);
  } else if (const int comment = lightning_comment(c.model); comment >= 0 && c.job.launch != nullptr) {
    c.add(Severity::advice, "audit.signal",
          fmt::format("the comment on line {} says the program is PyTorch Lightning (the code does not show it): if "
                      "so, its SLURM auto-requeue checkpoints and resubmits the job when SIGUSR1 arrives, and no "
                      "#SBATCH --signal asks Slurm to send it",
                      c.model.line_of(comment)),
          "if it is Lightning, add #SBATCH --signal=SIGUSR1@90 (seconds before the limit; allow for a checkpoint save)",
          comment);
  }
}

} // namespace

void signal_findings(FindingContext& c)
{
  lightning_signal(c);
  trap_deferred(c);
  if (batch_signal_untrapped(c) || !c.job.megatron) {
    return;
  }
  const Word* handler = nullptr;
  std::string wanted = "TERM";
  const auto& args = c.job.launch->args;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].known && args[i].text() == "--exit-signal-handler") {
      handler = &args[i];
    }
    if (args[i].known && args[i].text() == "--exit-signal" && i + 1 < args.size() && args[i + 1].known) {
      wanted = signal_name(args[i + 1].text());
    }
  }
  const Directive* d = c.model.directive("signal");
  if (handler != nullptr && d == nullptr) {
    c.add(Severity::warning, "audit.signal",
          fmt::format("--exit-signal-handler waits for SIG{} but no #SBATCH --signal asks Slurm to send it before "
                      "the time limit; at the limit SIGKILL follows SIGTERM after KillWait (30 s by default), "
                      "usually too soon to save a checkpoint",
                      wanted),
          fmt::format("add #SBATCH --signal={}@120 (seconds before the limit; allow for a checkpoint save)", wanted),
          handler->offset);
    return;
  }
  if (d == nullptr || !d->has_value) {
    return;
  }
  std::string value = d->value;
  if (value.size() > 2 && value[1] == ':') {
    value.erase(0, 2);
  }
  const std::string sent = signal_name(value.substr(0, value.find('@')));
  if (handler == nullptr) {
    c.add(Severity::advice, "audit.signal",
          fmt::format("#SBATCH --signal sends SIG{} but the Megatron-LM command has no --exit-signal-handler: the "
                      "signal ends training early without a checkpoint",
                      sent),
          "add --exit-signal-handler to the training arguments", d->offset);
  } else if (sent != wanted) {
    c.add(Severity::warning, "audit.signal",
          fmt::format("#SBATCH --signal sends SIG{} but --exit-signal-handler listens for SIG{}", sent, wanted),
          fmt::format("#SBATCH --signal={}{}", wanted, d->value.find('@') == std::string::npos ? "" : d->value.substr(d->value.find('@'))),
          d->value_offset);
  }
}

} // namespace lg::audit::detail
