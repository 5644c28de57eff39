// What run_created stores to rebuild the job on resume (`watch RUN_ID`, a
// second driver): the job file's text and path, the preset directories and
// the command line's cluster overrides.
#pragma once

#include "config/job_spec.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lg::launch {

struct ClusterOverrides
{
  std::optional<std::string> gpu;  // --gpu
  std::optional<int> nodes;        // --nodes
  std::optional<int> gpus_per_node;  // --gpus-per-node
};

// The "source" document of run_created.
nlohmann::json job_source(const std::filesystem::path& path, const std::string& text,
                          const std::vector<std::filesystem::path>& preset_dirs,
                          const ClusterOverrides& overrides);

// Rebuild the job from a "source" document. Throws InputError when the saved
// job no longer loads (a preset removed, say).
config::JobSpec load_job_source(const nlohmann::json& source);

} // namespace lg::launch
