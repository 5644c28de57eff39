#include "launch/job_source.hpp"

#include "config/loader.hpp"

namespace lg::launch {

namespace fs = std::filesystem;

nlohmann::json job_source(const fs::path& path, const std::string& text, const std::vector<fs::path>& preset_dirs,
                          const ClusterOverrides& overrides)
{
  nlohmann::json saved = nlohmann::json::object();
  if (overrides.gpu) {
    saved["gpu"] = *overrides.gpu;
  }
  if (overrides.nodes) {
    saved["nodes"] = *overrides.nodes;
  }
  if (overrides.gpus_per_node) {
    saved["gpus-per-node"] = *overrides.gpus_per_node;
  }
  std::vector<std::string> dirs;
  for (const auto& dir : preset_dirs) {
    dirs.push_back(fs::absolute(dir).string());
  }
  return {{"kind", "toml"},
          {"path", fs::absolute(path).string()},
          {"text", text},
          {"preset_dirs", dirs},
          {"overrides", saved}};
}

config::JobSpec load_job_source(const nlohmann::json& source)
{
  config::LoadOptions options;
  for (const auto& dir : source.value("preset_dirs", std::vector<std::string>{})) {
    options.preset_dirs.emplace_back(dir);
  }
  config::JobSpec spec = config::load_job_text(source.value("text", ""), source.value("path", "job.toml"), options);
  const auto overrides = source.value("overrides", nlohmann::json::object());
  if (overrides.contains("nodes")) {
    spec.cluster.nodes = overrides["nodes"].get<int>();
  }
  if (overrides.contains("gpus-per-node")) {
    spec.cluster.gpus_per_node = overrides["gpus-per-node"].get<int>();
  }
  if (overrides.contains("gpu")) {
    spec.cluster.gpu = overrides["gpu"].get<std::string>();
    config::resolve_gpu(spec, options);
  }
  return spec;
}

} // namespace lg::launch
