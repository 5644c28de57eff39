// `launchguard presets`: the model and GPU presets shipped and found in the
// user's preset directories.
#include "cli/commands.hpp"
#include "cli/data_paths.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_input.hpp"
#include "cli/output.hpp"
#include "config/loader.hpp"
#include "util/bytes.hpp"
#include "util/error.hpp"

#include <fmt/core.h>

namespace lg::cli {

int run_presets(const GlobalOptions& global, const std::vector<std::string>& args)
{
  namespace po = boost::program_options;
  po::options_description options("presets options");
  options.add_options()("kind", po::value<std::string>()->default_value("all"), "models, gpus or all")(
    "preset-dir", po::value<std::vector<std::string>>()->composing(), "extra preset directory");
  const ParsedArgs parsed = parse_args("presets", options, args, 0);
  const std::string kind = parsed.vars["kind"].as<std::string>();
  if (kind != "all" && kind != "models" && kind != "gpus") {
    UsageError error("presets: --kind must be models, gpus or all, got '{}'", kind);
    throw error;
  }
  const config::LoadOptions load = load_options(parsed);
  nlohmann::json document = nlohmann::json::object();
  for (const std::string k : {"models", "gpus"}) {
    if (kind != "all" && kind != k) {
      continue;
    }
    nlohmann::json list = nlohmann::json::array();
    if (!global.json) {
      fmt::print("{}:\n", k);
    }
    for (const auto& [name, path] : config::list_presets(load, k)) {
      nlohmann::json entry = {{"name", name}, {"path", path.string()}};
      std::string detail;
      if (k == "gpus") {
        const auto gpu = config::load_gpu_preset(path);
        entry["capacity_bytes"] = gpu.capacity_bytes;
        entry["generation"] = config::to_string(gpu.generation);
        detail = fmt::format("{}, {}, {}", gpu.display_name, format_bytes(static_cast<double>(gpu.capacity_bytes)),
                             config::to_string(gpu.generation));
      }
      if (!global.json) {
        fmt::print("  {:<20} {}  {}\n", name, detail, colorize(global.color, "dim", path.string()));
      }
      list.push_back(entry);
    }
    document[k] = list;
  }
  if (global.json) {
    print_json(document);
  }
  return k_exit_ok;
}

} // namespace lg::cli
