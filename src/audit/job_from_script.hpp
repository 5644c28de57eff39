// ScriptModel -> the JobSpec pieces `check` and `env` use: nodes and GPUs from
// the directives and the launcher, Megatron-LM arguments from the training
// launch line (through config::job_from_megatron_args), the environment the
// launch line sees. Keys that cannot be known statically are listed, and
// their locations point at k_unknown_file so findings about them are dropped
// instead of guessed.
#pragma once

#include "audit/script_model.hpp"
#include "config/job_spec.hpp"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace lg::audit {

inline constexpr const char* k_unknown_file = "<unknown>";

struct ScriptJob
{
  const Launch* launch = nullptr;  // the training launch line, or nullptr
  bool megatron = false;           // Megatron-LM arguments were read from it
  bool megatron_program = false;   // the program is a Megatron entry point (pretrain_*.py, …/megatron/…)
  bool bridge = false;             // the job was read from Megatron Bridge key=value overrides (megatron is true too)
  // Settings the overrides leave to the recipe that a rule takes at the
  // ConfigContainer default, in words (the findings that rely on them say so).
  std::vector<std::string> assumed;
  config::JobSpec spec;            // locations point into the script (file = path)
  std::set<std::string> unknown;   // JobSpec keys ("parallelism.tp", "cluster", …) not known
  bool args_opaque = false;        // part of the argv cannot be known (e.g. $EXTRA_ARGS)
  bool model_known = false;        // num_layers, hidden_size, heads all known
  bool cluster_known = false;      // nodes and processes per node known
  // The heterogeneous job component the launch's step runs in (srun
  // --het-group=N; 0 without one, and for a launch without srun: the batch
  // script's own); -1 when not one known component (--het-group=0,2, `:`).
  int component = 0;
  int nodes = 0;                   // allocation nodes from the directives (0 = unknown)
  bool flux_nodes = false;         // read from a Flux `#FLUX: -N` directive (no #SBATCH count)
  int gpus_per_node = 0;           // GPUs per node from the directives (0 = unknown)
  int tasks_per_node = 0;          // srun tasks per node (0 = unknown)
  int world = 0;                   // training processes (0 = unknown)
  int world_nodes = 0;             // nodes those processes span (0 = unknown)
  int world_offset = -1;           // where the process count comes from
  std::optional<std::pair<std::string, int>> args_error;  // (message, offset)
  // The exported environment at the launch line, in assignment order (last
  // assignment per name). `environment_complete` is false when a `source`
  // before the launch may have set more.
  std::vector<Assignment> environment;
  bool environment_complete = true;

  // True when `key` (or its section) is known statically.
  bool key_known(const std::string& key) const;
  const Assignment* env(const std::string& name) const;
};

// The JobSpec pieces of `model`, with `gpu` as the cluster's GPU; `path`
// names the script in locations.
ScriptJob job_from_script(const ScriptModel& model, const config::GpuSpec& gpu, const std::string& path);

// The `source` at `offset` activates a Python environment (`source
// venv/bin/activate`, `. activate ENV`): it sets PATH, VIRTUAL_ENV or CONDA_*
// and nothing a launch rule reads.
bool activation(const ScriptModel& model, int offset);

// The nodes, GPUs and tasks per node of `job.launch` (its srun and launcher
// options over the #SBATCH ones) into `job` (job_cluster.cpp).
void read_cluster(const ScriptModel& model, ScriptJob& job);

// The launch line audit treats as the training launch: the last one running
// a Megatron-LM program, else the last running Python, else the last launch.
const Launch* training_launch(const ScriptModel& model);

// The heterogeneous job component `launch`'s srun step runs in (0 without
// srun or --het-group), or -1 when it spans several or is not known.
int step_component(const Launch& launch, const ScriptModel& model);

// Parse a Slurm count ("8", "h100:8", "gpu:8", "gpu:h100:8(S:0-1)"); 0 if not one.
int gpu_count(const std::string& value);
// How many hosts a Slurm hostlist expression names ("n[1-4],m2" -> 5), or 0.
int hostlist_count(const std::string& list);

} // namespace lg::audit
