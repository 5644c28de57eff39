// Job steps that never run the training: a launch sent to the background
// that nothing waits for, `srun NAME=v cmd`, `docker run -it` with no
// terminal to attach, and `docker run` given none of the job's GPUs.
#include "audit/findings.hpp"
#include "audit/launch_tools.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <array>
#include <string_view>

namespace lg::audit::detail {

std::size_t pipeline_end(const ScriptModel& model, std::size_t command)
{
  while (command + 1 < model.commands.size() && model.commands[command].terminator == "|") {
    ++command;
  }
  return command;
}

namespace {

// After `from`, something keeps (or may keep) the batch shell alive until
// the step ends: anything but quick bookkeeping (echo, cd, assignments …) -
// a `wait`, a foreground launch, a polling loop, a monitor script - or a
// `wait` anywhere (a function called later), or the PID ($!) kept.
bool kept_alive_after(const ScriptModel& model, std::size_t from)
{
  static constexpr std::array<std::string_view, 13> k_quick = {
    "echo", "printf", "date", "true", ":", "cd", "mkdir", "hostname", "exit", "set", "export", "module", "ml"};
  for (std::size_t i = from + 1; i < model.commands.size(); ++i) {
    const Command& command = model.commands[i];
    if (command.words.empty()) {
      continue;  // assignments only
    }
    if (!command.words.front().known
        || std::find(k_quick.begin(), k_quick.end(), command.words.front().text()) == k_quick.end()) {
      return true;
    }
  }
  for (const Command& command : model.commands) {
    if (!command.words.empty() && command.words.front().known && command.words.front().text() == "wait") {
      return true;
    }
  }
  const auto end = static_cast<std::size_t>(std::max(0, model.commands[from].end));
  return model.text.find("$!", end) != std::string::npos || model.text.find("wait", end) != std::string::npos;
}

// sbatch(1): the job ends when the batch script exits, and Slurm then ends
// every step still running (on the local Slurm 22.05 `srun sleep 30 &` as
// the last line gives a job COMPLETED after one second).
void background_launch(FindingContext& c)
{
  if (c.model.directives.empty()) {
    return;  // not known to be a batch script (run under salloc the step outlives it)
  }
  for (const auto& l : c.model.launches) {
    if (l.command < 0 || static_cast<std::size_t>(l.command) >= c.model.commands.size()) {
      continue;
    }
    const std::size_t last = pipeline_end(c.model, static_cast<std::size_t>(l.command));
    if (c.model.commands[last].terminator != "&" || kept_alive_after(c.model, last)) {
      continue;
    }
    c.add(Severity::error, "audit.background_launch",
          "the launch runs in the background (`&`) and nothing waits for it: the batch script reaches its end at "
          "once, the job ends with it and Slurm kills the step, so the training stops within seconds",
          "remove the `&`, or add `wait` after the launch", c.model.commands[last].end - 1);
    return;
  }
}

// slurmstepd execs the first word after srun's options; for `srun NAME=v
// cmd` the local Slurm 22.05 says "slurmstepd: error: execve(): NAME=v: No
// such file or directory" and the step exits with code 2.
void exec_assignment(FindingContext& c)
{
  for (const auto& l : c.model.launches) {
    if (l.exec_assignment < 0) {
      continue;
    }
    const std::string tool = l.has("srun") ? "srun" : "mpirun";
    const auto end = c.model.text.find_first_of(" \t\n", static_cast<std::size_t>(l.exec_assignment));
    const std::string word = c.model.text.substr(
      static_cast<std::size_t>(l.exec_assignment),
      end == std::string::npos ? std::string::npos : end - static_cast<std::size_t>(l.exec_assignment));
    const std::string says = tool == "srun" ? fmt::format(" (\"execve(): {}: No such file or directory\")", word)
                                            : std::string();
    c.add(
      Severity::error, "audit.step_assignment",
      fmt::format("`{} {} …`: {} runs its first operand as the program, so every task tries to execute a file "
                  "named \"{}\" and fails{}",
                  tool, word, tool, word, says),
      fmt::format("put the variables in front of {} (`{} {} …`), or write `{} env {} …`", tool, word, tool, tool, word),
      l.exec_assignment);
  }
}

// `docker run -it IMAGE` in a batch job: sbatch gives the script no terminal
// (its stdin is /dev/null), and the docker CLI refuses -i with -t on a stdin
// that is not one ("the input device is not a TTY", docker/cli
// cli/command/container/run.go, CheckTty), so the container never starts.
void docker_tty(FindingContext& c)
{
  for (const auto& command : c.model.commands) {
    const auto& w = command.words;
    if (w.size() < 3 || !w[0].known || !w[1].known || w[0].offset != command.begin
        || (w[0].text() != "docker" && !w[0].text().ends_with("/docker")) || w[1].text() != "run") {
      continue;
    }
    bool interactive = false;
    bool tty = false;
    for (std::size_t i = 2; i < w.size() && w[i].known && w[i].text().starts_with("-"); ++i) {
      const std::string& t = w[i].text();
      if (t == "--interactive" || t == "--tty") {
        (t == "--tty" ? tty : interactive) = true;
      } else if (!t.starts_with("--") && t.find('=') == std::string::npos
                 && t.find_first_not_of("ditP", 1) == std::string::npos) {
        interactive = interactive || t.find('i') != std::string::npos;
        tty = tty || t.find('t') != std::string::npos;
      }
    }
    if (interactive && tty) {
      c.add(Severity::error, "audit.docker_tty",
            "`docker run` with -i and -t in a batch job: the script has no terminal (sbatch connects its stdin to "
            "/dev/null), so docker stops with \"the input device is not a TTY\" and the container never runs",
            "drop -t (and -i unless something is piped in): `docker run --rm …`", command.begin);
    }
  }
}


// Words of `docker run` that give the container GPUs: --gpus (Docker docs,
// "docker container run", --gpus), the NVIDIA runtime (--runtime=nvidia,
// which exposes NVIDIA_VISIBLE_DEVICES; NVIDIA Container Toolkit docs,
// "Running a Sample Workload"), a CDI device (--device nvidia.com/gpu=…), or
// --privileged.
bool gives_gpus(const std::string& word, const std::string& next)
{
  return word == "--gpus" || word.starts_with("--gpus=") || word == "--privileged"
         || word.starts_with("--runtime=nvidia") || (word == "--runtime" && next == "nvidia")
         || word.find("nvidia.com/gpu") != std::string::npos || next.find("nvidia.com/gpu") != std::string::npos
         || word.find("NVIDIA_VISIBLE_DEVICES") != std::string::npos
         || next.starts_with("NVIDIA_VISIBLE_DEVICES");
}

// docker run options that take the next word as their value: the ones the
// launch reader's docker grammar (launch_tools.cpp) does not list as flags,
// written without '='.
bool takes_value(const std::string& option)
{
  const OptionGrammar& g = docker_grammar();
  if (option.find('=') != std::string::npos || !option.starts_with("-")) {
    return false;
  }
  if (option.starts_with("--")) {
    return g.flags.count(option.substr(2)) == 0;
  }
  return option.find_first_not_of(g.short_flags, 1) != std::string::npos;  // `-it` is flags, `-v` a value
}

// `docker run IMAGE …` in a job that asks for GPUs, without any of those:
// Docker gives a container no GPU unless asked, and the daemon, not the job,
// starts it (outside the job's cgroup), so Slurm's allocation does not reach
// it. Round 19's diffusion-policy array job. A warning: a daemon whose
// default runtime is nvidia (daemon.json "default-runtime") with an image
// that sets NVIDIA_VISIBLE_DEVICES does expose GPUs. Not judged with an
// unreadable word in the command (it may hold --gpus).
void docker_gpus(FindingContext& c)
{
  if (!requests_gpus(c.model, 0)) {
    return;
  }
  for (const auto& command : c.model.commands) {
    const auto& w = command.words;
    if (w.size() < 3 || !w[0].known || !w[1].known || w[0].offset != command.begin
        || (w[0].text() != "docker" && !w[0].text().ends_with("/docker")) || w[1].text() != "run") {
      continue;
    }
    // docker's options up to the image (the first word that is neither an
    // option nor an option's value); an unreadable word there may be any
    // option, one that is the value of -v, -e … only that value.
    bool given = false;
    for (std::size_t i = 2; i < w.size() && !given; ++i) {
      const std::string& t = w[i].text();
      if (w[i].opaque || w[i].list) {
        given = true;
        break;
      }
      if (!t.starts_with("-")) {
        break;  // the image: what follows is the container's command
      }
      given = gives_gpus(t, i + 1 < w.size() ? w[i + 1].text() : "");
      if (takes_value(t)) {
        ++i;
      }
    }
    if (!given) {
      c.add(Severity::warning, "audit.docker_gpus",
            "`docker run` without --gpus in a job that asks for GPUs: Docker gives a container no GPU unless asked, "
            "and the Docker daemon starts it outside the job, so the GPUs Slurm allocated do not reach it; the "
            "program inside finds no CUDA device (unless the daemon's default runtime is nvidia)",
            "add --gpus \"device=$SLURM_JOB_GPUS\" (the GPUs Slurm gave the job; --gpus all takes every GPU of "
            "the node), or run the image with Slurm's own container support (pyxis --container-image, apptainer "
            "exec --nv)",
            command.begin);
    }
  }
}
// `srun docker run … IMAGE torchrun --nnodes=4 …` on several nodes. The
// Docker daemon, not the job, starts the container: on Docker's default
// bridge network it has an address of its own behind NAT (Docker docs,
// "Bridge network driver": containers on the default bridge reach the
// outside through masquerading, and are not reachable from other hosts
// without published ports), so the rendezvous and NCCL, which advertise
// that address, are not reachable from the other nodes: the job hangs at
// initialisation. And `--gpus all` gives the container every GPU of the
// node, whatever Slurm allocated. Round 24's 4-node docker job. Warnings.
void docker_multi_node(FindingContext& c)
{
  const int nodes = c.job.nodes;
  for (const auto& command : c.model.commands) {
    const auto& w = command.words;
    std::size_t run = w.size();
    for (std::size_t i = 0; i + 1 < w.size(); ++i) {
      if (w[i].known && (w[i].text() == "docker" || w[i].text().ends_with("/docker")) && w[i + 1].known
          && w[i + 1].text() == "run") {
        run = i + 1;
        break;
      }
    }
    if (run == w.size()) {
      continue;
    }
    bool host_network = false;
    bool all_gpus = false;
    bool unread = false;
    bool distributed = false;
    std::size_t i = run + 1;
    for (; i < w.size(); ++i) {
      const std::string& t = w[i].text();
      if (w[i].opaque || w[i].list) {
        unread = true;
        break;
      }
      if (!t.starts_with("-")) {
        break;  // the image
      }
      host_network = host_network || t == "--network=host" || t == "--net=host"
                     || ((t == "--network" || t == "--net") && i + 1 < w.size() && w[i + 1].text() == "host");
      all_gpus = all_gpus || t == "--gpus=all" || (t == "--gpus" && i + 1 < w.size() && w[i + 1].text() == "all");
      if (takes_value(t)) {
        ++i;
      }
    }
    for (std::size_t k = i + 1; k < w.size(); ++k) {
      const std::string& t = w[k].text();
      distributed = distributed || t == "torchrun" || t.ends_with("/torchrun") || t == "torch.distributed.run"
                    || t == "deepspeed" || t == "accelerate";
    }
    if (unread) {
      continue;
    }
    if (nodes > 1 && distributed && !host_network) {
      c.add(Severity::warning, "audit.docker_network",
            fmt::format("`docker run` without --network=host on {} nodes: the container sits on Docker's bridge "
                        "network behind NAT, so the rendezvous and NCCL advertise an address the other nodes cannot "
                        "reach, and the job hangs at initialisation",
                        nodes),
            "add --network=host (and --ipc=host for NCCL's shared memory), or run the image with Slurm's container "
            "support (pyxis, apptainer)",
            command.begin);
    }
    const Directive* gres = c.model.directive("gres");
    const int asked = c.job.gpus_per_node;
    if (all_gpus && asked > 0 && gres != nullptr && c.model.directive("exclusive") == nullptr && asked < 8) {
      c.add(Severity::warning, "audit.docker_all_gpus",
            fmt::format("`docker run --gpus all` gives the container every GPU of the node, not the {} Slurm "
                        "allocated to this job: it may use GPUs other jobs hold",
                        asked),
            "pass the job's GPUs: --gpus \"\\\"device=$CUDA_VISIBLE_DEVICES\\\"\"", command.begin);
    }
  }
}

// `srun bash -c 'dcgmi dmon … > log &'`: the task's shell starts the
// command in the background and exits at once; the step ends with its
// tasks, and Slurm kills what the step left running (srun(1): the step ends
// when its tasks exit; proctrack/cgroup ends every process of the step). So
// the monitor (or server) is gone within a second. Round 24's A3 Mega job
// started its GPU monitor that way. A warning.
void background_in_step(FindingContext& c)
{
  for (const auto& command : c.model.commands) {
    const auto& w = command.words;
    if (w.size() < 4 || !w[0].known || (w[0].text() != "srun" && !w[0].text().ends_with("/srun"))) {
      continue;
    }
    for (std::size_t i = 1; i + 2 < w.size(); ++i) {
      const std::string& shell = w[i].text();
      if (!w[i].known || (shell != "bash" && shell != "sh") || w[i + 1].text() != "-c") {
        continue;
      }
      std::string body = w[i + 2].text();
      while (!body.empty() && std::isspace(static_cast<unsigned char>(body.back())) != 0) {
        body.pop_back();
      }
      const bool ends_in_background = body.size() >= 2 && body.back() == '&' && body[body.size() - 2] != '&';
      if (ends_in_background && body.find("wait") == std::string::npos) {
        const std::string head = body.substr(body.find_first_not_of(" \t\n"), std::string::npos);
        const std::string program = head.substr(0, head.find_first_of(" \t\n"));
        c.add(Severity::warning, "audit.step_background",
              fmt::format("the srun step's shell starts `{}` in the background (`&` ends its command) and exits at "
                          "once: the step ends with its tasks, and Slurm kills what they left running, so `{}` "
                          "stops within a second",
                          program, program),
              fmt::format("end the command with `wait` (`… & wait`), or run `{}` in the foreground of its step",
                          program),
              w[i + 2].offset);
      }
      break;
    }
  }
}

}  // namespace

void step_findings(FindingContext& context)
{
  background_in_step(context);
  background_launch(context);
  exec_assignment(context);
  docker_tty(context);
  docker_gpus(context);
  docker_multi_node(context);
}

}  // namespace lg::audit::detail
