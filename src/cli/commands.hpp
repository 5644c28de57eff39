// The command table and the options every subcommand shares. Each subcommand
// lives in its own cli/<name>.cpp and has the CommandFn signature.
#pragma once

#include <string>
#include <vector>

namespace lg::cli {

struct GlobalOptions
{
  bool json = false;   // --json: one JSON document on stdout, nothing else
  bool color = false;  // resolved from --color auto|always|never and NO_COLOR
  int verbose = 0;     // -v, repeatable
};

// A subcommand: `args` are the words after the subcommand name (global
// options already removed). Returns the process exit code (exit_codes.hpp).
using CommandFn = int (*)(const GlobalOptions& global, const std::vector<std::string>& args);

struct CommandSpec
{
  const char* name;
  const char* synopsis;  // "check JOB.toml | -- MEGATRON_ARGS…"
  const char* summary;   // one line, shown by `launchguard --help`
  CommandFn run;
};

// Return the command named `name`, or nullptr.
const CommandSpec* find_command(const std::string& name);

// Parse global options, dispatch to the subcommand, return its exit code.
int run(int argc, char** argv);

int run_check(const GlobalOptions& global, const std::vector<std::string>& args);
int run_estimate(const GlobalOptions& global, const std::vector<std::string>& args);
int run_env(const GlobalOptions& global, const std::vector<std::string>& args);
int run_render(const GlobalOptions& global, const std::vector<std::string>& args);
int run_submit(const GlobalOptions& global, const std::vector<std::string>& args);
int run_watch(const GlobalOptions& global, const std::vector<std::string>& args);
int run_diagnose(const GlobalOptions& global, const std::vector<std::string>& args);
int run_audit(const GlobalOptions& global, const std::vector<std::string>& args);
int run_runs(const GlobalOptions& global, const std::vector<std::string>& args);
int run_convert(const GlobalOptions& global, const std::vector<std::string>& args);
int run_presets(const GlobalOptions& global, const std::vector<std::string>& args);
int run_tune(const GlobalOptions& global, const std::vector<std::string>& args);

} // namespace lg::cli
