// rules::check on the launch line's JobSpec, placed on the script's words.
// A finding is kept only when it points at a word of the script and every
// key it depends on is known (table below); memory is estimated only when the
// model and the cluster are fully known.
#include "audit/findings.hpp"

#include "config/not_modelled.hpp"
#include "estimate/estimate.hpp"
#include "rules/rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>
#include <string_view>

namespace lg::audit::detail {

namespace {

struct Dependency
{
  std::string_view rule;  // id or id prefix
  std::initializer_list<const char*> keys;
};

// Keys a rule reads besides the one it points at.
const std::array<Dependency, 24>& dependencies()
{
  static const std::array<Dependency, 24> k_table = {{
    {"optimizer.", {"cluster", "parallelism.tp", "parallelism.pp", "parallelism.cp"}},
    {"sequence_parallel.", {"parallelism.tp"}},
    {"pipeline.", {"parallelism.pp"}},
    {"parallelism.world_size", {"cluster", "parallelism.tp", "parallelism.pp", "parallelism.cp"}},
    {"parallelism.expert_world_size",
     {"cluster", "parallelism.tp", "parallelism.pp", "parallelism.ep", "parallelism.etp"}},
    {"parallelism.gbs_divisible",
     {"cluster", "training.global_batch_size", "training.micro_batch_size", "parallelism.tp", "parallelism.pp",
      "parallelism.cp"}},
    {"parallelism.heads_divisible_by_tp", {"model.num_attention_heads", "parallelism.tp"}},
    {"parallelism.layers_divisible_by_pp", {"model.num_layers", "parallelism.pp"}},
    {"parallelism.query_groups_vs_tp", {"model.num_query_groups", "model.num_attention_heads", "parallelism.tp"}},
    {"parallelism.first_stage_layers", {"model.num_layers", "parallelism.pp"}},
    {"parallelism.last_stage_layers", {"model.num_layers", "parallelism.pp"}},
    {"parallelism.uneven_pp", {"model.num_layers", "parallelism.pp"}},
    {"parallelism.tp_within_nvlink", {"cluster", "parallelism.tp"}},
    {"pipeline.vpp_layers_divisible", {"model.num_layers", "parallelism.pp", "parallelism.vpp"}},
    // Its fix lists the VPP sizes that divide the layers of a pipeline rank.
    {"pipeline.pp_without_vpp", {"model.num_layers", "parallelism.pp"}},
    {"pipeline.vpp_microbatch", {"cluster", "training.global_batch_size", "training.micro_batch_size"}},
    {"model.", {"model.num_layers", "model.hidden_size", "model.num_attention_heads"}},
    {"model.max_position_embeddings", {"model.seq_length"}},
    {"precision.dims_divisible_by_16", {"model.hidden_size", "model.ffn_hidden_size"}},
    {"context_parallel.", {"model.seq_length", "parallelism.cp"}},
    {"moe.experts_divisible_by_ep", {"model.moe.num_experts", "parallelism.ep"}},
    {"moe.ep_requires_experts", {"model.moe.num_experts"}},  // a Bridge recipe may define the experts
    {"memory.", {"cluster", "model.num_layers", "model.hidden_size", "model.num_attention_heads", "model.seq_length"}},
    {"advice.", {"cluster", "model.num_layers", "model.hidden_size", "model.num_attention_heads"}},
  }};
  return k_table;
}

bool dependencies_known(const ScriptJob& job, const std::string& rule)
{
  for (const auto& dep : dependencies()) {
    if (!rule.starts_with(dep.rule)) {
      continue;
    }
    for (const char* key : dep.keys) {
      if (!job.key_known(key)) {
        return false;
      }
    }
  }
  return true;
}

bool allocator_expandable(const ScriptJob& job)
{
  const Assignment* conf = job.env("PYTORCH_CUDA_ALLOC_CONF");
  return conf != nullptr && !conf->value.empty()
         && conf->value.front().text().find("expandable_segments:True") != std::string::npos;
}

std::string unknown_list(const ScriptJob& job)
{
  std::string out;
  for (const auto& key : job.unknown) {
    out += (out.empty() ? "" : ", ") + key;
  }
  if (job.args_opaque) {
    out += std::string(out.empty() ? "" : ", ") + "arguments hidden in unknown variables";
  }
  return out.empty() ? "none" : out;
}

// A job-file key in a rule's fix, as the script spells it.
std::string script_terms(std::string fix)
{
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 16> k_terms = {{
    {"parallelism.sequence_parallel", "--sequence-parallel"}, {"parallelism.first_stage_layers", "--decoder-first-pipeline-num-layers"},
    {"parallelism.last_stage_layers", "--decoder-last-pipeline-num-layers"}, {"parallelism.vpp", "--num-virtual-stages-per-pipeline-rank"},
    {"parallelism.tp", "--tensor-model-parallel-size"}, {"parallelism.pp", "--pipeline-model-parallel-size"},
    {"parallelism.cp", "--context-parallel-size"}, {"parallelism.etp", "--expert-tensor-parallel-size"},
    {"parallelism.ep", "--expert-model-parallel-size"}, {"cluster.nodes", "#SBATCH --nodes"},
    {"cluster.gpus_per_node", "GPUs per node"}, {"training.cpu_offloading_layers", "--cpu-offloading-num-layers"},
    {"training.micro_batch_size", "--micro-batch-size"}, {"training.global_batch_size", "--global-batch-size"},
    {"training.distributed_optimizer", "--use-distributed-optimizer"}, {"training.recompute", "--recompute-granularity"},
  }};
  for (const auto& [key, flag] : k_terms) {
    for (auto at = fix.find(key); at != std::string::npos; at = fix.find(key, at + flag.size())) {
      const std::size_t end = at + key.size();
      if (end < fix.size() && (std::isalnum(static_cast<unsigned char>(fix[end])) != 0 || fix[end] == '_')) {
        continue;
      }
      fix.replace(at, key.size(), flag);
    }
  }
  return fix;
}

} // namespace

namespace {

// What the estimator does not model in this job (config/not_modelled.hpp:
// the Megatron-LM reader noted the flags and the program; a Megatron-DeepSpeed
// launch is noted here), in one sentence; empty when everything is modelled.
std::string unmodelled_memory_settings(const ScriptJob& job, bool deepspeed)
{
  config::JobSpec spec = job.spec;
  if (deepspeed) {
    const bool noted = std::any_of(spec.not_modelled.begin(), spec.not_modelled.end(),
                                   [](const config::NotModelled& n) { return n.setting == "--deepspeed"; });
    if (!noted) {
      config::note_not_modelled(spec, "deepspeed", "Megatron-DeepSpeed");
    }
  }
  std::string out;
  for (const auto& item : config::not_modelled(spec)) {
    out += fmt::format("{}{} ({})", out.empty() ? "" : "; ", item.setting, item.what);
  }
  return out;
}

// With the GPU assumed (neither --gpu nor the script names it), a rule that
// fires on one GPU generation and not on another is a guess about the
// hardware: keep only what every generation's check reports.
void drop_generation_dependent(const config::JobSpec& spec, const estimate::Estimate& estimate,
                               std::vector<Diagnostic>& diagnostics)
{
  std::vector<std::string> everywhere;
  for (const auto& d : diagnostics) {
    everywhere.push_back(d.rule);
  }
  for (auto generation : {config::GpuGeneration::ampere, config::GpuGeneration::hopper, config::GpuGeneration::blackwell}) {
    config::JobSpec other = spec;
    other.cluster.gpu_info.generation = generation;
    std::vector<std::string> rules;
    for (const auto& d : rules::check(other, estimate)) {
      rules.push_back(d.rule);
    }
    std::erase_if(everywhere, [&](const std::string& r) { return std::find(rules.begin(), rules.end(), r) == rules.end(); });
  }
  std::erase_if(diagnostics, [&](const Diagnostic& d) {
    return std::find(everywhere.begin(), everywhere.end(), d.rule) == everywhere.end();
  });
}

// On a GPU the script does not name, advice that only fires because memory
// is tight there (advice.avoid_tp_increase, …) is a guess: the advice a job
// would not get on a GPU with four times the memory is dropped.
void drop_capacity_dependent_advice(const config::JobSpec& spec, const estimate::Options& options,
                                    std::vector<Diagnostic>& diagnostics)
{
  config::JobSpec roomy = spec;
  roomy.cluster.gpu_info.capacity_bytes *= 4;
  std::vector<std::string> kept;
  for (const auto& d : rules::check(roomy, estimate::estimate(roomy, options))) {
    kept.push_back(d.rule);
  }
  std::erase_if(diagnostics, [&](const Diagnostic& d) {
    return d.rule.starts_with("advice.") && std::find(kept.begin(), kept.end(), d.rule) == kept.end();
  });
}

// Rules that are Megatron-LM performance or layout advice, not correctness.
bool megatron_lm_only(const std::string& rule)
{
  static constexpr std::array<std::string_view, 11> k_prefixes = {
    "optimizer.", "advice.", "pipeline.pp_without_vpp", "sequence_parallel.recommended_with_tp", "sequence_parallel.tp_comm",
    "parallelism.layers_divisible_by_pp", "parallelism.uneven_pp", "parallelism.first_stage_layers",
    "parallelism.last_stage_layers", "recompute.", "memory."};
  return std::any_of(k_prefixes.begin(), k_prefixes.end(), [&](std::string_view p) { return rule.starts_with(p); });
}

// A job on a CPU partition that asks for no GPU (no --gres, --gpus*): a data
// preparation step (Megatron Bridge's pack_sft_data.py, preprocess_data.py)
// that takes a recipe's flags; there is no GPU memory to judge.
bool cpu_only_job(const ScriptModel& model)
{
  if (requests_gpus(model, 0)) {
    return false;
  }
  const Directive* partition = model.directive("partition");
  if (partition == nullptr || !partition->has_value || partition->value.empty()) {
    return false;
  }
  std::string value = partition->value;
  std::transform(value.begin(), value.end(), value.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  std::size_t start = 0;
  while (start <= value.size()) {
    const auto comma = value.find(',', start);
    const std::string part = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (part.find("cpu") == std::string::npos) {
      return false;
    }
    if (comma == std::string::npos) {
      break;
    }
    start = comma + 1;
  }
  return true;
}

} // namespace

// Megatron-DeepSpeed (or DeepSpeed under a Megatron-style program): ZeRO
// shards the optimizer, DeepSpeed's PipelineModule places layers by
// --pp-partition-method (no divisibility rule), and Megatron-LM's own
// performance advice (VPP, SP, distributed optimizer) does not apply.
bool megatron_deepspeed(const ScriptJob& job)
{
  if (job.launch->has("deepspeed")) {
    return true;
  }
  std::string program = job.launch->program ? job.launch->program->text() : "";
  std::transform(program.begin(), program.end(), program.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (program.find("deepspeed") != std::string::npos) {
    return true;
  }
  for (const auto& w : job.launch->args) {
    const std::string& t = w.text();
    if (w.known
        && (t == "--deepspeed" || t.starts_with("--deepspeed_config") || t.starts_with("--deepspeed-config")
            || t.starts_with("--zero-stage") || t.starts_with("--pp-partition-method")
            || t == "--deepspeed-activation-checkpointing")) {
      return true;
    }
  }
  return false;
}

// Where a finding on the launch goes: where the program's file name is
// written. A program word built from variables (`python ${DIR}/pretrain_gpt.py`
// in a string run by `eval` or `bash -c`) has the offset of its first
// character's source, the assignment of DIR, which says nothing about the
// launch; the name after the last '/' is where the command was written.
int program_name_offset(const Launch& launch)
{
  const Word& program = *launch.program;
  const std::size_t slash = program.text().rfind('/');
  const auto& offsets = program.value.offsets;
  if (slash == std::string::npos || slash + 1 >= offsets.size() || offsets[slash + 1] < 0) {
    return program.offset;
  }
  return offsets[slash + 1];
}

void job_findings(FindingContext& context)
{
  const ScriptJob& job = context.job;
  if (job.args_error) {
    context.add(Severity::error, "audit.megatron_args", job.args_error->first,
                "correct the argument; Megatron-LM stops at startup on it", job.args_error->second);
  }
  if (!job.megatron) {
    return;
  }
  const bool deepspeed = megatron_deepspeed(job);
  const std::string unmodelled = unmodelled_memory_settings(job, deepspeed);
  // Every key known: a parallel size or batch the script leaves unknown
  // (set in a branch, or by the caller) is taken as Megatron's default by
  // the reader, and a verdict on that default would be a guess.
  // The default GPU is an 8-GPU HGX board; nodes of several GPUs that are
  // not 8 (4 on GH200, GB200, GB300 and many A100 systems) say the job runs
  // on something else, so a verdict against the default would be a guess.
  const auto& cluster = job.spec.cluster;
  const bool other_board = context.options.gpu_assumed && job.cluster_known && cluster.nodes > 1
                           && cluster.gpus_per_node > 1 && cluster.gpus_per_node != cluster.gpu_info.nvlink_domain;
  const bool cpu_only = cpu_only_job(context.model);
  const bool estimable = !cpu_only && job.model_known && job.cluster_known && !job.args_opaque && job.unknown.empty()
                         && job.spec.cluster.gpu_info.capacity_bytes > 0 && unmodelled.empty() && !other_board
                         && context.options.gpu_unmatched.empty();
  estimate::Estimate estimate;
  estimate::Options estimate_options;
  if (estimable) {
    estimate_options.expandable_segments = allocator_expandable(job);
    estimate = estimate::estimate(job.spec, estimate_options);
  } else if (!cpu_only) {
    const std::string why =
      !unmodelled.empty() ? fmt::format("the estimator does not model {}", unmodelled)
      : !context.options.gpu_unmatched.empty()
        ? fmt::format("the script names {}{}", context.options.gpu_unmatched,
                      context.options.gpu_vendor.empty() ? "; --gpu names the GPU" : "")
      : other_board ? fmt::format("the script names no GPU, and its nodes have {} GPUs, not the {} of the {} board "
                                  "assumed by default (GH200, GB200, GB300 and many A100 nodes have 4); --gpu names it",
                                  cluster.gpus_per_node, cluster.gpu_info.nvlink_domain, cluster.gpu_info.display_name)
                    : fmt::format("unknown statically: {}", unknown_list(job));
    // The fix follows the reason the message gives: naming a GPU helps only
    // when the GPU is the reason, and not for an AMD GPU or an Ascend NPU,
    // which no preset models.
    const bool vendor = !context.options.gpu_vendor.empty();
    const std::string fix =
      !unmodelled.empty() || vendor ? "measure one step (`launchguard watch` reports the peak) before scaling up"
      : other_board || !context.options.gpu_unmatched.empty()
        ? "name the GPU: `launchguard audit --gpu NAME` (`launchguard presets` lists them)"
        : "write the model and parallelism flags and the node/GPU counts literally (or in variables set in the "
          "script), or run `launchguard check` on the job";
    context.add(Severity::advice, "audit.memory_unknown", fmt::format("memory not judged: {}", why), fix,
                program_name_offset(*job.launch));
  }
  std::vector<Diagnostic> diagnostics = rules::check(job.spec, estimate);
  if (context.options.gpu_assumed) {
    drop_generation_dependent(job.spec, estimate, diagnostics);
    if (estimable) {
      drop_capacity_dependent_advice(job.spec, estimate_options, diagnostics);
    }
  }
  const bool world_fired = std::any_of(diagnostics.begin(), diagnostics.end(),
                                       [](const Diagnostic& d) { return d.rule == "parallelism.world_size"; });
  for (auto& diagnostic : diagnostics) {
    if (world_fired && diagnostic.rule == "parallelism.expert_world_size" && job.spec.parallelism.ep == 1) {
      continue;  // the same divisibility as world_size when ep = 1
    }
    if ((deepspeed || !job.megatron_program) && megatron_lm_only(diagnostic.rule)) {
      continue;  // Megatron-LM's advice needs Megatron-LM, not a program that takes similar flags
    }
    if (!diagnostic.where || diagnostic.where->file != context.path || diagnostic.where->line == 0
        || !dependencies_known(job, diagnostic.rule)) {
      continue;
    }
    if (!estimable && (diagnostic.rule.starts_with("memory.") || diagnostic.rule.starts_with("advice."))) {
      continue;
    }
    // An OOM judged against a GPU the script does not name is a warning
    // that says so: the same job may fit the GPU it really runs on.
    if (context.options.gpu_assumed && diagnostic.rule.starts_with("memory.") &&
        diagnostic.severity == Severity::error) {
      diagnostic.severity = Severity::warning;
      diagnostic.message += fmt::format(" (the GPU is assumed: the script names none; with --gpu the verdict is "
                                        "judged on the GPU it runs on)");
    }
    // "Close to the capacity" of a GPU the script does not name says nothing
    // about the GPU it runs on (an A100 40GB runs out, a GH200 96GB has room):
    // advice that says which capacity it was measured against, one step below
    // the OOM verdict's warning.
    if (context.options.gpu_assumed && diagnostic.rule == "memory.borderline"
        && diagnostic.severity == Severity::warning) {
      diagnostic.severity = Severity::advice;
      diagnostic.message += " (measured against the assumed GPU: the script names none; with --gpu the verdict is "
                            "judged on the GPU it runs on)";
    }
    AuditFinding finding;
    diagnostic.fix = script_terms(diagnostic.fix);
    finding.diagnostic = std::move(diagnostic);
    context.out.push_back(std::move(finding));
  }
}

} // namespace lg::audit::detail
