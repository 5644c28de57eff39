#include "cli/job_input.hpp"

#include "cli/commands.hpp"
#include "cli/data_paths.hpp"
#include "config/bridge_command_line.hpp"
#include "config/bridge_keys.hpp"
#include "config/bridge_yaml.hpp"
#include "config/hf_config.hpp"
#include "config/job_json.hpp"
#include "config/loader.hpp"
#include "config/megatron_args.hpp"
#include "util/edit_distance.hpp"
#include "util/error.hpp"
#include "util/secrets.hpp"

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
    ("preset-dir", po::value<std::vector<std::string>>()->composing(), "extra preset directory (models/, gpus/)")
    ("hf-config", po::value<std::string>(), "Hugging Face config.json or model directory: the model (under a job file's own [model] keys)")
    ("bridge-config", po::value<std::string>(), "Megatron Bridge ConfigContainer YAML (run_config.yaml, or a checkpoint directory holding it)")
    ("bridge-override", po::value<std::vector<std::string>>()->composing(),
     "Megatron Bridge ConfigContainer override KEY=VALUE (repeatable), e.g. model.tensor_model_parallel_size=8");
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

// The --bridge-override words, located by their position among them.
static std::vector<config::BridgeSetting> override_settings(const ParsedArgs& parsed)
{
  std::vector<config::BridgeSetting> settings;
  if (parsed.vars.count("bridge-override") == 0) {
    return settings;
  }
  int index = 0;
  for (const auto& word : parsed.vars["bridge-override"].as<std::vector<std::string>>()) {
    ++index;
    auto setting = config::parse_bridge_override(word, SourceLocation{"--bridge-override", index, 1});
    if (!setting) {
      UsageError error("--bridge-override '{}' is not KEY=VALUE", word);
      error.hint = "write e.g. --bridge-override model.tensor_model_parallel_size=8";
      throw error;
    }
    settings.push_back(std::move(*setting));
  }
  return settings;
}

// A job from Bridge inputs alone: launchguard's defaults for everything the
// ConfigContainer does not say (cluster, Slurm, launch).
static config::JobSpec bridge_base_job(const std::string& source)
{
  config::JobSpec spec;
  spec.name = "bridge-job";
  spec.source_file = source;
  spec.launch.framework = config::Framework::megatron_bridge;
  return spec;
}

bool has_job_inputs_besides_file(const ParsedArgs& parsed)
{
  const auto& v = parsed.vars;
  return !parsed.passthrough.empty() || v.count("bridge-config") != 0 || v.count("bridge-override") != 0
         || v.count("hf-config") != 0;
}

config::JobSpec load_job(const ParsedArgs& parsed)
{
  JobSource source;
  if (!parsed.positional.empty()) {
    source.path = parsed.positional.front();
  }
  return load_job(parsed, source);
}

config::JobSpec load_job(const ParsedArgs& parsed, const JobSource& source)
{
  config::LoadOptions options = load_options(parsed);
  options.defer_finish = true;
  if (parsed.vars.count("hf-config") != 0) {
    options.hf_config = parsed.vars["hf-config"].as<std::string>();
  }
  const bool bridge_config = parsed.vars.count("bridge-config") != 0;
  const auto overrides = override_settings(parsed);
  const auto bridge_line =
    parsed.passthrough.empty() ? std::nullopt : config::read_bridge_command_line(parsed.passthrough);
  config::JobSpec spec;
  const bool own_job = !source.path.empty() || !source.json_line.empty() || !source.toml_text.empty();
  if (!source.path.empty()) {
    spec = config::load_job_file(source.path, options);
  } else if (!source.json_line.empty()) {
    spec = config::load_job_json(source.json_line, source.display, source.line, options);
  } else if (!source.toml_text.empty()) {
    spec = config::load_job_text(source.toml_text, source.display, options);
  } else if (!parsed.passthrough.empty() && !bridge_line) {
    config::MegatronArgsOptions megatron;
    spec = config::job_from_megatron_args(parsed.passthrough, megatron);
  } else if (bridge_line || !overrides.empty() || bridge_config || options.hf_config) {
    spec = bridge_base_job(bridge_config ? parsed.vars["bridge-config"].as<std::string>() : "command line");
    if (options.hf_config) {
      config::apply_hf_config(spec, *options.hf_config);
      spec.name = "hf-job";
    }
  } else {
    UsageError error("missing job: give JOB.toml, a Megatron-LM or Megatron Bridge command line after '--', or Bridge inputs");
    error.hint = "e.g. launchguard check examples/llama3-70b-sft-h100.toml";
    throw error;
  }
  if (bridge_config) {
    config::apply_bridge_settings_or_throw(spec, config::read_bridge_yaml(parsed.vars["bridge-config"].as<std::string>()));
  }
  if (bridge_line) {
    if (!bridge_line->recipe.empty() && !own_job && !bridge_config && !options.hf_config) {
      InputError error("recipe '{}': launchguard does not ship this Megatron Bridge recipe's settings, so the "
                       "command line alone does not say the model or its parallelism",
                       bridge_line->recipe);
      error.hint = "give the ConfigContainer YAML the run writes (--bridge-config CHECKPOINT/iter_N/run_config.yaml), "
                   "or a job file with the model (launchguard check JOB.toml -- python run_recipe.py …)";
      throw error;
    }
    // With a job file, the file is what the recipe's words layer on; with only a
    // Hugging Face config, what the recipe itself sets is unknown: say so.
    if (!bridge_line->recipe.empty() && !bridge_config && !own_job) {
      spec.input_findings.push_back(Diagnostic{
        Severity::warning, "input.recipe_not_shipped",
        fmt::format("recipe '{}': launchguard does not ship its settings; the job is the Hugging Face config plus the "
                    "command line's key=value words, so a setting the recipe makes and the words do not repeat is not judged",
                    bridge_line->recipe),
        "give the run's run_config.yaml with --bridge-config to judge exactly what the recipe sets",
        SourceLocation{"command line", 1, 1}});
    }
    spec.launch.command = parsed.passthrough;
    spec.launch.framework = config::Framework::megatron_bridge;
    config::apply_bridge_settings_or_throw(spec, bridge_line->settings);
  }
  config::apply_bridge_settings_or_throw(spec, overrides);
  apply_cluster_overrides(parsed, spec);
  config::finish_job(spec, options);
  return spec;
}

} // namespace lg::cli

namespace lg::cli {

AtomicWriteOptions job_env_write_options(const config::JobSpec& spec)
{
  AtomicWriteOptions write;
  if (!secrets::secret_names(spec.env).empty()) {
    write.mode = 0600;
    write.force_mode = true;
  }
  return write;
}

} // namespace lg::cli
