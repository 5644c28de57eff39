// Loading a job file: TOML text -> JobSpec, with presets applied, every key
// type/range/enum checked, unknown keys rejected with "did you mean", and the
// location of every key recorded for later findings.
#pragma once

#include "config/job_spec.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lg::config {

struct LoadOptions
{
  // Directories holding models/<name>.toml and gpus/<name>.toml, searched in
  // order (shipped first, then the user's $XDG_CONFIG_HOME/launchguard/presets).
  std::vector<std::filesystem::path> preset_dirs;
  // A Hugging Face config.json (or model directory) read as the model, under
  // the job file's own [model] keys like a preset (--hf-config).
  std::optional<std::filesystem::path> hf_config;
  // Leave the checks that need the whole job (required model keys, MoE layer
  // pattern, GPU preset) to finish_job: more inputs are layered on first.
  bool defer_finish = false;
};

// Load the job file at `path`. Throws InputError listing every problem found
// ("job.toml:5:12: parallelism.tp must be an integer, got string \"four\"")
// with a hint for the first.
JobSpec load_job_file(const std::filesystem::path& path, const LoadOptions& options);

// Same, from `text`; `display_name` is used in locations.
JobSpec load_job_text(std::string_view text,
                      const std::string& display_name,
                      const LoadOptions& options);

// The checks that need the whole job, after every input is layered on: MoE
// layer frequency expanded and checked against num_layers, required model keys,
// Slurm time/mem/extra_args and the workdir, GPU preset resolved. Throws
// InputError listing every problem.
void finish_job(JobSpec& spec, const LoadOptions& options);

// Find `presets/<kind>/<name>.toml` in `options.preset_dirs`; kind is
// "models" or "gpus". Throws InputError with the available names when absent.
std::filesystem::path find_preset(const LoadOptions& options,
                                  std::string_view kind,
                                  std::string_view name);

// Names of all presets of `kind` found in `options.preset_dirs`, each with the
// file it comes from (first directory wins), sorted by name.
std::vector<std::pair<std::string, std::filesystem::path>>
list_presets(const LoadOptions& options, std::string_view kind);

// Load a GPU preset file into a GpuSpec. Throws InputError on bad content.
GpuSpec load_gpu_preset(const std::filesystem::path& path);

// Apply the GPU preset named spec.cluster.gpu (after a command line changed
// it, say). Throws InputError when not found.
void resolve_gpu(JobSpec& spec, const LoadOptions& options);

} // namespace lg::config
