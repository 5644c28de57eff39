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

} // namespace

void signal_findings(FindingContext& c)
{
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
