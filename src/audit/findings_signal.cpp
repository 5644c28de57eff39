// --signal against the trainer's handler: Megatron-LM's --exit-signal-handler
// listens for --exit-signal (default SIGTERM); Slurm sends nothing before the
// time limit unless #SBATCH --signal asks, and B: sends only to the batch shell.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <cctype>

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

} // namespace

void signal_findings(FindingContext& c)
{
  if (!c.job.megatron) {
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
  const bool batch_only = value.starts_with("B:");
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
  } else if (batch_only && !has_trap(c.model)) {
    c.add(Severity::warning, "audit.signal",
          "#SBATCH --signal=B:… signals only the batch shell, which has no trap: the training processes never "
          "see it",
          "drop the B: prefix, or trap the signal in the script and forward it", d->value_offset);
  }
}

} // namespace lg::audit::detail
