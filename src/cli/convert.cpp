// `launchguard convert JOB --to toml|bridge-overrides|megatron-args`: the same
// job in another form (config/job_writer.hpp), read from any job input.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_input.hpp"
#include "cli/output.hpp"
#include "config/job_writer.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <iostream>

namespace lg::cli {

int run_convert(const GlobalOptions& global, const std::vector<std::string>& args)
{
  namespace po = boost::program_options;
  po::options_description options("convert options");
  options.add_options()("to", po::value<std::string>(), "output form: toml, bridge-overrides or megatron-args");
  add_job_options(options);
  const ParsedArgs parsed = parse_args("convert", options, args);
  if (parsed.vars.count("to") == 0) {
    UsageError error("convert: --to is required");
    error.hint = "e.g. launchguard convert job.toml --to bridge-overrides";
    throw error;
  }
  const std::string to = parsed.vars["to"].as<std::string>();
  if (to != "toml" && to != "bridge-overrides" && to != "megatron-args") {
    UsageError error("convert: --to '{}' is not a form launchguard writes", to);
    error.hint = "use --to toml, --to bridge-overrides or --to megatron-args";
    throw error;
  }
  const config::JobSpec spec = load_job(parsed);
  const std::string header =
    fmt::format("Written by `launchguard convert --to toml` from {}: every key explicit.", spec.source_file);
  std::vector<std::string> words;
  std::vector<std::string> lossy;
  if (to == "bridge-overrides") {
    words = config::job_to_bridge_overrides(spec);
  } else if (to == "megatron-args") {
    words = config::job_to_megatron_args(spec, lossy);
  }
  if (global.json) {
    nlohmann::json out = {{"to", to}, {"not_carried", lossy}};
    if (to == "toml") {
      out["text"] = config::job_to_toml(spec, header);
    } else {
      out["words"] = words;
    }
    print_json(out);
    return k_exit_ok;
  }
  for (const auto& note : lossy) {
    std::cerr << "launchguard: note: not carried: " << note << "\n";
  }
  if (to == "toml") {
    fmt::print("{}", config::job_to_toml(spec, header));
  } else if (to == "bridge-overrides") {
    for (const auto& word : words) {
      fmt::print("{}\n", shell_quote(word));
    }
  } else {
    std::vector<std::string> quoted;
    for (const auto& word : words) {
      quoted.push_back(shell_quote(word));
    }
    fmt::print("{}\n", fmt::join(quoted, " "));
  }
  return k_exit_ok;
}

} // namespace lg::cli
