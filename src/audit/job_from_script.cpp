// ScriptModel -> ScriptJob (job_from_script.hpp): the training launch, its
// environment and its Megatron-LM arguments.
#include "audit/job_from_script.hpp"

#include "audit/launch.hpp"
#include "audit/megatron_words.hpp"

#include <algorithm>
#include <map>

namespace lg::audit {

namespace {


bool contains_megatron(std::string text)
{
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text.find("megatron") != std::string::npos;
}

// The exported variables as the launch line at `command` sees them.
void read_environment(const ScriptModel& model, const Launch& launch, ScriptJob& job)
{
  const int begin = model.commands[static_cast<std::size_t>(launch.command)].begin;
  std::map<std::string, std::size_t> index;
  std::vector<Assignment> env;
  auto put = [&](const Assignment& a) {
    const auto it = index.find(a.name);
    if (it == index.end()) {
      index[a.name] = env.size();
      env.push_back(a);
    } else {
      env[it->second] = a;
    }
  };
  for (const auto& a : model.assignments) {
    if (a.offset >= begin || a.prefix) {
      continue;
    }
    if (a.kind == AssignKind::unset || !a.exported) {
      const auto it = index.find(a.name);
      if (it != index.end() && (a.kind == AssignKind::unset || !env[it->second].exported)) {
        env[it->second].kind = AssignKind::unset;
      }
      if (a.kind == AssignKind::unset) {
        put(a);
      }
      continue;
    }
    put(a);
  }
  if (launch.export_none) {
    env.clear();
    index.clear();
  }
  for (const auto& a : launch.env) {
    put(a);
  }
  for (auto& a : env) {
    if (a.kind != AssignKind::unset) {
      job.environment.push_back(a);
    }
  }
  job.environment_complete = !launch.sources;
  for (int offset : model.sources) {
    job.environment_complete = job.environment_complete && (offset >= begin || activation(model, offset));
  }
}

} // namespace

// `source venv/bin/activate`, `. activate ENV`: a Python environment's
// activation, which sets PATH, VIRTUAL_ENV or CONDA_* and nothing a launch
// rule reads (venv's bin/activate; conda's activate script).
bool activation(const ScriptModel& model, int offset)
{
  const auto begin = static_cast<std::size_t>(offset);
  const auto end = model.text.find_first_of("\n;&|", begin);
  const std::string line = model.text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  const auto space = line.find_first_of(" \t");
  if (space == std::string::npos) {
    return false;
  }
  const auto first = line.find_first_not_of(" \t", space);
  const auto last = line.find_first_of(" \t", first);
  if (first == std::string::npos) {
    return false;
  }
  const std::string file = line.substr(first, last == std::string::npos ? std::string::npos : last - first);
  return file == "activate" || file.ends_with("/bin/activate");
}

const Launch* training_launch(const ScriptModel& model)
{
  const Launch* python = nullptr;
  const Launch* megatron = nullptr;
  for (const auto& l : model.launches) {
    // `python -c "import torch; print(…)"`: a one-line check, not the training.
    if (l.python && l.program && l.program->text() != "-c") {
      python = &l;
      if (contains_megatron(l.program->text()) || basename_contains_pretrain(l.program->text())
          || looks_like_megatron_args(l.args) || looks_like_bridge_overrides(l.args)) {
        megatron = &l;
      }
    }
  }
  if (megatron != nullptr) {
    return megatron;
  }
  if (python != nullptr) {
    return python;
  }
  return model.launches.empty() ? nullptr : &model.launches.back();
}

bool ScriptJob::key_known(const std::string& key) const
{
  std::string probe = key;
  while (true) {
    if (unknown.count(probe) != 0) {
      return false;
    }
    const auto dot = probe.rfind('.');
    if (dot == std::string::npos) {
      break;
    }
    probe.resize(dot);
  }
  if (key.starts_with("cluster")) {
    return cluster_known;
  }
  const auto it = spec.locations.find(key);
  if (it != spec.locations.end()) {
    return it->second.file != k_unknown_file;
  }
  return megatron && !args_opaque && !bridge;  // a Bridge recipe sets what its words do not
}

const Assignment* ScriptJob::env(const std::string& name) const
{
  for (const auto& a : environment) {
    if (a.name == name) {
      return &a;
    }
  }
  return nullptr;
}

ScriptJob job_from_script(const ScriptModel& model, const config::GpuSpec& gpu, const std::string& path)
{
  ScriptJob job;
  job.launch = training_launch(model);
  job.spec.source_file = k_unknown_file;
  job.spec.cluster.gpu = gpu.name;
  job.spec.cluster.gpu_info = gpu;
  read_cluster(model, job);
  if (job.launch == nullptr) {
    job.unknown.insert("cluster");
    return job;
  }
  read_environment(model, *job.launch, job);
  if (!job.launch->python || !job.launch->program) {
    return job;
  }
  const std::string& program = job.launch->program->text();
  // A wrapper's snake_case flags: not one of Megatron-LM's entry points,
  // whatever its path says (megatron_words.hpp).
  const bool named = (contains_megatron(program) || basename_contains_pretrain(program))
                     && !snake_case_megatron_args(job.launch->args);
  const bool megatron_args = looks_like_megatron_args(job.launch->args);
  if (!megatron_args && looks_like_bridge_overrides(job.launch->args)) {
    read_bridge(model, path, job);  // a Bridge entry point (run_recipe.py, a recipe's pretrain_*.py)
    return job;
  }
  // "train_gpt.py experiments/x" (nanoGPT, llm.c and many others use the
  // name; Megatron-LM's entry points are pretrain_*.py): a train_gpt*/finetune*
  // file with not one Megatron-LM flag and no word that could hold them is
  // not evidence of Megatron.
  const bool opaque_args = std::any_of(job.launch->args.begin(), job.launch->args.end(),
                                       [](const Word& w) { return !w.known && w.opaque; });
  if (named && !contains_megatron(program) && !detail::basename_of(program).starts_with("pretrain_") && !megatron_args
      && !opaque_args) {
    return job;
  }
  job.megatron_program = named;
  if (named || megatron_args) {
    read_megatron(model, path, job);
  }
  // --fake-process-group (Megatron-LM arguments.py: "profiling memory usage
  // of distributed training with just one GPU", WORLD_SIZE and RANK set to
  // the target scale; initialize.py then uses torch's fake backend): one
  // process stands for the whole world, so the launch's own process count
  // says nothing about it.
  const bool fake_world = std::any_of(job.launch->args.begin(), job.launch->args.end(),
                                      [](const Word& w) { return w.known && w.text() == "--fake-process-group"; });
  if (job.megatron && fake_world) {
    job.cluster_known = false;
    job.unknown.insert("cluster");
    job.spec.locations["cluster"] = SourceLocation{k_unknown_file, 0, 0};
  }
  if (job.megatron && !named) {
    // A program that takes Megatron-LM flags but is not one of its entry
    // points may be a wrapper that starts its own processes: how many
    // training processes run is not known.
    job.cluster_known = false;
    job.unknown.insert("cluster");
    job.spec.locations["cluster"] = SourceLocation{k_unknown_file, 0, 0};
  }
  return job;
}

} // namespace lg::audit
