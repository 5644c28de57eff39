// Internal to src/audit: reading the Megatron-LM arguments of a launch line
// into the ScriptJob's JobSpec, with unknown words kept out and their keys
// listed as unknown.
#pragma once

#include "audit/job_from_script.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace lg::audit {

// Flags whose value is a list of words (data paths, module lists).
inline bool multi_valued(const std::string& flag)
{
  return flag.ends_with("data-path") || flag == "recompute-modules" || flag == "cuda-graph-modules"
         || flag == "cuda-graph-scope" || flag == "split" || flag.ends_with("data-args-path");
}

// Sorts the words after the program: known words go to argv; a flag whose
// value is unknown is dropped with its values and listed; an unknown word
// that may hold any flags makes the argv opaque.
struct ArgvReader
{
  std::vector<std::string> argv;
  std::vector<int> offsets;
  std::set<std::string> unknown_flags;
  bool opaque = false;
  std::string flag;      // the flag whose values follow
  int values = 0;
  std::size_t flag_index = 0;
  bool dropping = false;  // the current flag was dropped: drop its values too

  void known(const Word& w)
  {
    const std::string& t = w.text();
    if (t.starts_with("--")) {
      const auto eq = t.find('=');
      flag = t.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      values = eq == std::string::npos ? 0 : 1;
      flag_index = argv.size();
      dropping = false;
      opaque = opaque || flag == "config" || flag.starts_with("yaml");
    } else if (dropping) {
      return;
    } else {
      ++values;
    }
    argv.push_back(t);
    offsets.push_back(w.offset);
  }

  void unknown(const Word& w)
  {
    const std::string& t = w.text();
    // An unknown array, "${ARGS[@]}": a list of words (bash(1), Arrays), not
    // the value of the flag before it; any flag may be among them.
    if (w.list) {
      opaque = true;
    }
    if (t.starts_with("--")) {
      const std::string name = t.substr(2, t.find('=') == std::string::npos ? std::string::npos : t.find('=') - 2);
      if (name.find('$') != std::string::npos || name.find('{') != std::string::npos) {
        opaque = true;
      } else {
        unknown_flags.insert(name);
      }
      flag.clear();
      return;
    }
    if (!flag.empty() && !dropping && (values == 0 || multi_valued(flag))) {
      unknown_flags.insert(flag);
      argv.resize(flag_index);
      offsets.resize(flag_index);
      dropping = true;
      return;
    }
    if (dropping) {
      return;
    }
    opaque = opaque || w.opaque;
    flag.clear();
  }
};

// True for pretrain_*.py style program names.
bool basename_contains_pretrain(const std::string& program);

// True when at least two words of `args` are Megatron-LM flags the JobSpec reads.
bool looks_like_megatron_args(const std::vector<Word>& args);
// Megatron flags written mostly with '_' (`--tensor_model_parallel_size`):
// Megatron-LM's argparse defines them with '-' and argparse matches option
// strings as written, so Megatron-LM itself stops on them ("unrecognized
// arguments"); the program is a wrapper that takes them its own way, with
// defaults of its own (held-out round 28: ms-swift's Megatron sft.py, whose
// use_distributed_optimizer defaults to true).
bool snake_case_megatron_args(const std::vector<Word>& args);

// The JobSpec key a Megatron-LM flag (without dashes) sets, found by asking
// config::job_from_megatron_args; nullopt for flags the JobSpec ignores.
std::optional<std::string> key_of_flag(const std::string& flag);

// Fill job.spec (parallelism, model, training, cluster) from job.launch.
void read_megatron(const ScriptModel& model, const std::string& path, ScriptJob& job);

// True when `args` hold a Megatron Bridge override (`model.tensor_model_parallel_size=4`,
// Hydra `+key=value` too) in a ConfigContainer section (bridge_job.cpp).
bool looks_like_bridge_overrides(const std::vector<Word>& args);

// Fill job.spec from the Megatron Bridge overrides of job.launch, read by
// config::apply_bridge_settings (the one reading of Bridge settings); what
// the words do not set is the recipe's, so unknown (bridge_job.cpp).
void read_bridge(const ScriptModel& model, const std::string& path, ScriptJob& job);

// Shared by both readers (megatron_job.cpp): `offset` as a location in `path`;
// the cluster from the world size read_cluster found; the unknown keys, the
// cluster and the launch line's environment placed into `locations`, which
// become job.spec.locations.
SourceLocation script_location(const ScriptModel& model, const std::string& path, int offset);
void read_world(ScriptJob& job);
void place_job(const ScriptModel& model, const std::string& path, std::map<std::string, SourceLocation> locations,
               ScriptJob& job);

} // namespace lg::audit
