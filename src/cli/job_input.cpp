#include "cli/job_input.hpp"

#include "cli/commands.hpp"
#include "cli/data_paths.hpp"
#include "config/loader.hpp"
#include "config/megatron_args.hpp"
#include "util/edit_distance.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <iostream>

namespace lg::cli {

namespace po = boost::program_options;

void add_job_options(po::options_description& options)
{
  options.add_options()
    ("gpu", po::value<std::string>(), "GPU preset (overrides [cluster] gpu), e.g. h100-80gb")
    ("nodes", po::value<int>(), "number of nodes (overrides [cluster] nodes)")
    ("gpus-per-node", po::value<int>(), "GPUs per node (overrides [cluster] gpus_per_node)")
    ("preset-dir", po::value<std::vector<std::string>>()->composing(), "extra preset directory (models/, gpus/)");
}

static std::vector<std::string> long_names(const po::options_description& options)
{
  std::vector<std::string> names;
  for (const auto& option : options.options()) {
    names.push_back("--" + option->long_name());
  }
  names.emplace_back("--help");
  return names;
}

static void print_help(const std::string& command, const po::options_description& options)
{
  const CommandSpec* spec = find_command(command);
  std::cout << "Usage: launchguard " << (spec != nullptr ? spec->synopsis : command.c_str()) << "\n";
  if (spec != nullptr) {
    std::cout << "\n" << spec->summary << "\n";
  }
  std::cout << "\n" << options << "  --help                        show this help\n"
            << "\nGlobal options: --json, --color auto|always|never, -v/--verbose\n";
}

ParsedArgs parse_args(const std::string& command,
                      const po::options_description& options,
                      const std::vector<std::string>& args,
                      int max_positional)
{
  ParsedArgs parsed;
  std::vector<std::string> own;
  bool after_dashes = false;
  for (const auto& word : args) {
    if (after_dashes) {
      parsed.passthrough.push_back(word);
    } else if (word == "--") {
      after_dashes = true;
    } else if (word == "--help" || word == "-h") {
      print_help(command, options);
      throw ExitRequest{0};
    } else {
      own.push_back(word);
    }
  }
  po::options_description all;
  all.add(options);
  all.add_options()("lg-positional", po::value<std::vector<std::string>>(), "");
  po::positional_options_description positional;
  positional.add("lg-positional", -1);
  try {
    po::store(po::command_line_parser(own).options(all).positional(positional).run(), parsed.vars);
    po::notify(parsed.vars);
  } catch (const po::unknown_option& e) {
    UsageError error("{}: unknown option '{}'", command, e.get_option_name());
    const auto names = long_names(options);
    if (auto near = nearest(e.get_option_name(), names)) {
      error.hint = fmt::format("did you mean '{}'? (see 'launchguard {} --help')", *near, command);
    } else {
      error.hint = fmt::format("see 'launchguard {} --help'", command);
    }
    throw error;
  } catch (const po::error& e) {
    UsageError error("{}: {}", command, e.what());
    error.hint = fmt::format("see 'launchguard {} --help'", command);
    throw error;
  }
  if (parsed.vars.count("lg-positional") != 0) {
    parsed.positional = parsed.vars["lg-positional"].as<std::vector<std::string>>();
  }
  if (max_positional >= 0 && parsed.positional.size() > static_cast<std::size_t>(max_positional)) {
    UsageError error("{}: unexpected argument '{}'", command, parsed.positional[static_cast<std::size_t>(max_positional)]);
    const CommandSpec* spec = find_command(command);
    error.hint = fmt::format("usage: launchguard {}", spec != nullptr ? spec->synopsis : command.c_str());
    throw error;
  }
  return parsed;
}

config::LoadOptions load_options(const ParsedArgs& parsed)
{
  std::vector<std::filesystem::path> extra;
  if (parsed.vars.count("preset-dir") != 0) {
    for (const auto& dir : parsed.vars["preset-dir"].as<std::vector<std::string>>()) {
      extra.emplace_back(dir);
    }
  }
  config::LoadOptions options;
  options.preset_dirs = preset_dirs(extra);
  return options;
}

static void apply_cluster_overrides(const ParsedArgs& parsed, config::JobSpec& spec)
{
  const auto& vars = parsed.vars;
  if (vars.count("nodes") != 0) {
    spec.cluster.nodes = vars["nodes"].as<int>();
    spec.locations["cluster.nodes"] = SourceLocation{"command line", 0, 0};
  }
  if (vars.count("gpus-per-node") != 0) {
    spec.cluster.gpus_per_node = vars["gpus-per-node"].as<int>();
    spec.locations["cluster.gpus_per_node"] = SourceLocation{"command line", 0, 0};
  }
  if (vars.count("gpu") != 0) {
    spec.cluster.gpu = vars["gpu"].as<std::string>();
    spec.locations["cluster.gpu"] = SourceLocation{"command line", 0, 0};
  }
  if (spec.cluster.nodes < 1 || spec.cluster.gpus_per_node < 1) {
    UsageError error("--nodes and --gpus-per-node must be at least 1");
    throw error;
  }
}

config::JobSpec load_job(const ParsedArgs& parsed)
{
  const config::LoadOptions options = load_options(parsed);
  if (!parsed.positional.empty()) {
    config::JobSpec spec = config::load_job_file(parsed.positional.front(), options);
    if (parsed.vars.count("gpu") + parsed.vars.count("nodes") + parsed.vars.count("gpus-per-node") != 0) {
      apply_cluster_overrides(parsed, spec);
      config::resolve_gpu(spec, options);
    }
    return spec;
  }
  if (!parsed.passthrough.empty()) {
    config::MegatronArgsOptions megatron;
    config::JobSpec spec = config::job_from_megatron_args(parsed.passthrough, megatron);
    apply_cluster_overrides(parsed, spec);
    config::resolve_gpu(spec, options);
    return spec;
  }
  UsageError error("missing job: give JOB.toml or a Megatron-LM command line after '--'");
  error.hint = "e.g. launchguard check examples/llama3-70b-sft-h100.toml";
  throw error;
}

} // namespace lg::cli
