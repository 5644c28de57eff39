// Reading "the job" the way every job-taking subcommand does: a TOML file, or
// a Megatron-LM command line after `--` plus --gpu/--nodes/--gpus-per-node.
#pragma once

#include "config/job_spec.hpp"
#include "config/loader.hpp"
#include "util/atomic_file.hpp"

#include <boost/program_options.hpp>

#include <string>
#include <vector>

namespace lg::cli {

// Add the job options (--gpu, --nodes, --gpus-per-node, --preset-dir) to
// `options`. The positional JOB.toml is declared by the caller as "job".
void add_job_options(boost::program_options::options_description& options);

// Parse `args` with `options`, returning the variables, the positional words
// (at most `max_positional`; -1 = any number) and, separately, the words after
// a literal `--`. Throws UsageError with the subcommand's usage and a "did you
// mean" on unknown options. `--help` prints the subcommand's usage and
// options and throws ExitRequest{0}.
struct ParsedArgs
{
  boost::program_options::variables_map vars;
  std::vector<std::string> positional;   // plain words (JOB.toml, LOG…)
  std::vector<std::string> passthrough;  // after `--`
};
ParsedArgs parse_args(const std::string& command,
                      const boost::program_options::options_description& options,
                      const std::vector<std::string>& args,
                      int max_positional = 1);

// The preset search path for `parsed`: shipped, user, then each --preset-dir.
config::LoadOptions load_options(const ParsedArgs& parsed);

// Thrown to end the command early with `code` (after --help, say).
struct ExitRequest
{
  int code = 0;
};

// Load the job named by `parsed`, layer by layer (ARCHITECTURE.md
// "Decisions"): the TOML file in positional[0], a Megatron-LM command line in
// passthrough, or Bridge/Hugging Face inputs alone; then --bridge-config, the
// Bridge recipe words, --bridge-override and the cluster options. Throws
// InputError (exit 2) on bad input, with file:line:column and a hint.
config::JobSpec load_job(const ParsedArgs& parsed);

// Whether `parsed` names a job without JOB.toml: Bridge inputs, a command line
// after `--`, or --hf-config.
bool has_job_inputs_besides_file(const ParsedArgs& parsed);

// What the job is read from when not positional[0]: a job file, one JSON
// object line of a batch (cli/job_batch.hpp), line `line` of `display`,
// or a job file's text made by the command itself (tune's job from --model or
// --hf-config and --gpus) named `display` ("tune --model"). The other inputs
// of `parsed` (--hf-config, Bridge inputs, --gpu/--nodes) layer on each as on
// the one job file of load_job(parsed).
struct JobSource
{
  std::string path;       // a job file (TOML); empty for a JSON line
  std::string json_line;  // one JSON object, when path is empty
  std::string toml_text;  // a generated job file, when path and json_line are empty
  std::string display;    // the JSON line's file or the text's name for locations
  int line = 0;           // the JSON line's number in `display`
};
config::JobSpec load_job(const ParsedArgs& parsed, const JobSource& source);

// How to write a file that carries `spec`'s [env] (`render -o`, `tune
// --write-job`): readable by its owner only (0600, also over an existing
// file's mode) when a value holds a secret (lg::secrets), else the defaults.
AtomicWriteOptions job_env_write_options(const config::JobSpec& spec);

} // namespace lg::cli
