#include "cli/commands.hpp"

#include "cli/exit_codes.hpp"
#include "cli/job_input.hpp"
#include "util/edit_distance.hpp"
#include "util/error.hpp"

#include <fmt/core.h>

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <cstring>

#ifndef LG_GIT_COMMIT
#define LG_GIT_COMMIT "unknown"
#endif

namespace lg::cli {

namespace {

const std::array k_commands = {
  CommandSpec{"check", "check JOB.toml… [--jsonl FILE|-] | check [--gpu G --nodes N] -- MEGATRON_ARGS…",
              "preflight: rules + memory verdict; exit 0 when nothing is an error", run_check},
  CommandSpec{"estimate", "estimate JOB.toml… [--jsonl FILE|-] | estimate [--gpu G --nodes N] -- MEGATRON_ARGS…",
              "per-GPU memory per pipeline stage, verdict, what-if table of fixes", run_estimate},
  CommandSpec{"tune",
              "tune JOB.toml [--free DIMS] | tune --model PRESET|--hf-config PATH --gpu GPU --gpus N [--seq S] [--gbs B] "
              "[--task pretrain|sft|lora] [--precision P] [--top K] [--write-job FILE] [--bridge-config FILE] "
              "[--bridge-override KEY=VALUE…]",
              "search TP/PP/VPP/CP/EP/MBS/recompute layouts, ranked by predicted throughput", run_tune},
  CommandSpec{"env", "env JOB.toml [--explain] [--format sh|json] [--set NAME=VALUE…]",
              "the composed job environment, each variable with why it is set", run_env},
  CommandSpec{"render", "render JOB.toml [-o FILE] [--force]",
              "the sbatch script, deterministic text", run_render},
  CommandSpec{"submit", "submit JOB.toml [--dry-run] [--retry N] [--detach] [-- SBATCH_ARGS…]",
              "preflight, render, sbatch, then watch (unless detached)", run_submit},
  CommandSpec{"watch", "watch RUN_ID | JOB_ID… [--log FILE]", "follow a run (resumable), or Slurm jobs, batched",
              run_watch},
  CommandSpec{"diagnose", "diagnose LOG… [--job JOB.toml] [--state SLURM_STATE]",
              "classify a failed job's logs offline, with the fix", run_diagnose},
  CommandSpec{"audit", "audit SCRIPT… [--fix[=diff]] [--format text|json|sarif]",
              "audit sbatch scripts and templates, line by line", run_audit},
  CommandSpec{"runs", "runs [RUN_ID]", "list runs and their attempts from the run journal", run_runs},
  CommandSpec{"convert", "convert JOB.toml --to toml|bridge-overrides|megatron-args",
              "the same job in another form: launchguard TOML, Megatron Bridge overrides, Megatron-LM flags",
              run_convert},
  CommandSpec{"presets", "presets [--kind models|gpus]", "list model and GPU presets shipped and found",
              run_presets},
};

void print_usage()
{
  fmt::print("Usage: launchguard [--json] [--color auto|always|never] [-v] <command> [args]\n\n"
             "Preflight, launch and diagnose large GPU training jobs on Slurm.\n\nCommands:\n");
  for (const auto& command : k_commands) {
    fmt::print("  {:<10} {}\n", command.name, command.summary);
  }
  fmt::print("\nGlobal options:\n"
             "  --json            machine output on stdout (one JSON document)\n"
             "  --color WHEN      auto (default), always or never; NO_COLOR is honoured\n"
             "  -v, --verbose     more detail on stderr\n"
             "  --version         print version and commit\n"
             "  -h, --help        this help; 'launchguard <command> --help' for a command\n"
             "\nExit codes: 0 ok, 1 the job has errors or failed, 2 usage or input error,\n"
             "3 Slurm or system failure, 130 interrupted.\n");
}

bool resolve_color(const std::string& when)
{
  if (when == "always") {
    return true;
  }
  if (when == "never") {
    return false;
  }
  if (when != "auto") {
    UsageError error("--color must be auto, always or never, got '{}'", when);
    throw error;
  }
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') {
    return false;
  }
  const char* term = std::getenv("TERM");
  return isatty(STDOUT_FILENO) != 0 && (term == nullptr || std::strcmp(term, "dumb") != 0);
}

} // namespace

const CommandSpec* find_command(const std::string& name)
{
  for (const auto& command : k_commands) {
    if (name == command.name) {
      return &command;
    }
  }
  return nullptr;
}

int run(int argc, char** argv)
{
  GlobalOptions global;
  std::string color = "auto";
  std::string command_name;
  std::vector<std::string> rest;
  bool after_dashes = false;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (after_dashes) {
      rest.push_back(word);
      continue;
    }
    if (word == "--") {
      after_dashes = true;
      rest.push_back(word);
    } else if (word == "--json") {
      global.json = true;
    } else if (word == "-v" || word == "--verbose") {
      ++global.verbose;
    } else if (word == "--color" && i + 1 < argc) {
      color = argv[++i];
    } else if (word.starts_with("--color=")) {
      color = word.substr(8);
    } else if (word == "--version" && command_name.empty()) {
      fmt::print("launchguard {} (commit {})\n", LG_VERSION, LG_GIT_COMMIT);
      return k_exit_ok;
    } else if ((word == "--help" || word == "-h") && command_name.empty()) {
      print_usage();
      return k_exit_ok;
    } else if (command_name.empty() && !word.starts_with("-")) {
      command_name = word;
    } else if (command_name.empty()) {
      UsageError error("unknown option '{}'", word);
      error.hint = "see 'launchguard --help'";
      throw error;
    } else {
      rest.push_back(word);
    }
  }
  global.color = resolve_color(color);
  if (command_name.empty()) {
    print_usage();
    return k_exit_usage;
  }
  const CommandSpec* command = find_command(command_name);
  if (command == nullptr) {
    std::vector<std::string> names;
    for (const auto& c : k_commands) {
      names.emplace_back(c.name);
    }
    UsageError error("unknown command '{}'", command_name);
    if (auto near = nearest(command_name, names)) {
      error.hint = fmt::format("did you mean '{}'?", *near);
    } else {
      error.hint = "see 'launchguard --help' for the list of commands";
    }
    throw error;
  }
  try {
    return command->run(global, rest);
  } catch (const ExitRequest& request) {
    return request.code;
  }
}

} // namespace lg::cli
