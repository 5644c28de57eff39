// No training launch read: say so, naming what the launch line runs
// (audit.no_launch); split from findings_shell.cpp.
#include "audit/findings.hpp"
#include "audit/job_from_script.hpp"
#include "audit/launch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace lg::audit::detail {

namespace {

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

}  // namespace

void no_launch_findings(FindingContext& context)
{
  no_training_launch(context);
}

}  // namespace lg::audit::detail
