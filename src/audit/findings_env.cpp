// env::compose on the environment the launch line sees. The composer fills
// every variable the job does not set from its policy, so its own findings
// only ever concern values the script wrote (they point at the export line);
// variables a hard rule needs but the script never sets are checked here.
#include "audit/findings.hpp"

#include "env/allocator_conf.hpp"
#include "env/compose.hpp"
#include "env/policy.hpp"

#include <fmt/format.h>

#include <array>
#include <string_view>

namespace lg::audit::detail {

namespace {

constexpr const char* k_cdmc = "CUDA_DEVICE_MAX_CONNECTIONS";

bool script_expandable(const ScriptJob& job)
{
  const Assignment* conf = job.env(env::k_alloc_conf);
  return conf != nullptr && conf->known && !conf->value.empty()
         && env::parse_alloc_conf(conf->value.front().text()).get("expandable_segments") == "True";
}

// Keys a composer finding depends on.
bool keys_known(const ScriptJob& job, const std::string& rule)
{
  if (rule.starts_with("env.cuda_device_max_connections")) {
    // TP > 1 or CP > 1 needs it: one known size above 1 is enough.
    const auto& p = job.spec.parallelism;
    const bool tp = job.key_known("parallelism.tp");
    const bool cp = job.key_known("parallelism.cp");
    // Megatron-DeepSpeed's megatron/arguments.py has no such assertion.
    return job.megatron && !megatron_deepspeed(job) && ((tp && cp) || (tp && p.tp > 1) || (cp && p.cp > 1))
           && job.key_known("training.fsdp")
           && job.key_known("training.overlap_moe_expert_parallel_comm");
  }
  if (rule == "env.nccl_ub_expandable_segments") {
    return job.megatron && job.key_known("training.nccl_ub");
  }
  if (rule == "env.nccl_graph_register") {
    return job.megatron && job.key_known("training.cuda_graphs");
  }
  static constexpr std::array<std::string_view, 5> k_always = {
    "allocator_config_error", "env.alloc_conf_async_ignores", "env.pytorch_alloc_conf_name", "env.nvte_cpu_offload_v1",
    "env.debug_setting"};
  for (auto id : k_always) {
    if (rule == id) {
      return true;
    }
  }
  return false;
}

// The value the policy wants for `name`, or nullopt (unset / not decided).
std::optional<std::string> policy_value(const env::JobFeatures& features, std::string_view name)
{
  for (const auto& row : env::policy_rows()) {
    if (name == row.name) {
      const auto decision = row.decide(features);
      if (decision && !decision->unset) {
        return decision->value;
      }
    }
  }
  return std::nullopt;
}

void value_edit(const Assignment* a, const std::string& value, AuditFinding& finding)
{
  if (a != nullptr && a->literal && !a->is_array && a->value_offset >= 0 && a->value_end >= a->value_offset) {
    finding.edits.push_back(Edit{a->value_offset, a->value_end, value});
  }
}

void rewrite(FindingContext& context, const env::JobFeatures& features, AuditFinding& finding)
{
  Diagnostic& d = finding.diagnostic;
  const ScriptJob& job = context.job;
  auto variable_fix = [&](const char* name, std::optional<std::string> required = std::nullopt) {
    const auto value = required ? required : policy_value(features, name);
    const Assignment* a = job.env(name);
    if (value) {
      d.fix = fmt::format("export {}={} before the launch line", name, *value);
      value_edit(a, *value, finding);
    } else {
      d.fix = fmt::format("remove the export of {} (or `unset {}`)", name, name);
    }
  };
  if (d.rule.starts_with("env.cuda_device_max_connections")) {
    variable_fix(k_cdmc);
  } else if (d.rule == "env.nccl_graph_register") {
    // Removing it is not enough: NCCL's default registers graphs, and
    // Megatron needs NCCL_GRAPH_REGISTER=0 with expandable segments.
    variable_fix("NCCL_GRAPH_REGISTER", std::string("0"));
  } else if (d.rule == "env.nvte_cpu_offload_v1") {
    variable_fix("NVTE_CPU_OFFLOAD_V1");
  } else if (d.rule == "env.nccl_ub_expandable_segments") {
    const Assignment* a = job.env(env::k_alloc_conf);
    env::AllocConf conf = env::parse_alloc_conf(a != nullptr && !a->value.empty() ? a->value.front().text() : "");
    conf.erase("expandable_segments");
    d.fix = "remove expandable_segments:True from PYTORCH_CUDA_ALLOC_CONF (NCCL user buffers need the MemPool API)";
    if (!conf.empty()) {
      value_edit(a, env::format_alloc_conf(conf), finding);
    }
  } else if (d.rule == "env.pytorch_alloc_conf_name") {
    const Assignment* a = job.env("PYTORCH_ALLOC_CONF");
    d.fix = "name the variable PYTORCH_CUDA_ALLOC_CONF";
    if (a != nullptr && a->literal && job.env(env::k_alloc_conf) == nullptr && a->offset >= 0) {
      const std::string& t = context.model.text;
      const auto at = t.compare(static_cast<std::size_t>(a->offset), 18, "PYTORCH_ALLOC_CONF");
      if (at == 0) {
        finding.edits.push_back(Edit{a->offset, a->offset + 18, env::k_alloc_conf});
      }
    }
  }
}

// What a finding on a Megatron Bridge launch took at the ConfigContainer
// default because the recipe, not the script, sets it.
std::string assumed_note(const ScriptJob& job)
{
  std::string out;
  for (const auto& a : job.assumed) {
    out += (out.empty() ? "; the recipe is taken to keep " : ", ") + a;
  }
  return out;
}

// Insert `export NAME=value` on its own line before the launch line; no edit
// when the launch is not a top-level command of its own line
// (insert_before_launch).
void insert_export(const ScriptModel& model, const Launch& launch, const std::string& name, const std::string& value,
                   AuditFinding& finding)
{
  const int begin = model.commands[static_cast<std::size_t>(launch.command)].begin;
  const int line = insert_before_launch(model, launch, false);
  if (line < 0) {
    return;
  }
  std::string indent;
  for (int i = line; i < begin && (model.text[static_cast<std::size_t>(i)] == ' ' || model.text[static_cast<std::size_t>(i)] == '\t'); ++i) {
    indent += model.text[static_cast<std::size_t>(i)];
  }
  finding.edits.push_back(Edit{line, line, indent + "export " + name + "=" + value + "\n"});
}

// The GPU generation as a finding names it: "hopper"; for an AMD GPU the
// device capability Megatron-LM compares (arguments.py reads the CUDA device's
// major version, which ROCm builds of PyTorch report as 9 on MI200/MI300),
// never the NVIDIA preset kept for generation-free rules.
std::string generation_text(const AuditOptions& options, const env::JobFeatures& f)
{
  return options.gpu_vendor == "amd" ? "an AMD GPU (its reported compute capability major, 9, is below 10)"
                                     : config::to_string(f.generation);
}

void missing_variables(FindingContext& context, const env::JobFeatures& f)
{
  const ScriptJob& job = context.job;
  if (!job.megatron || !job.environment_complete) {
    return;
  }
  const int at = context.model.commands[static_cast<std::size_t>(job.launch->command)].begin;
  const bool blackwell = env::is_blackwell_or_newer(f);
  if (job.env(k_cdmc) == nullptr && (f.tp > 1 || f.cp > 1) && !f.fsdp && !blackwell && !f.ep_a2a_overlap
      && keys_known(job, "env.cuda_device_max_connections_tp_cp")) {
    const bool mlm = f.framework == config::Framework::megatron_lm;
    // The script names no GPU at all: the assert holds below Blackwell
    // (compute capability 10), which the assumed H100 is, but the job's GPU
    // may not be. A warning that says so.
    const AuditOptions& o = context.options;
    const bool guessed = o.gpu_assumed && o.gpu_vendor.empty() && o.gpu_name.empty() && o.gpu_unmatched.empty();
    auto& finding = context.add(
      mlm && !guessed ? Severity::error : Severity::warning, "env.cuda_device_max_connections_tp_cp",
      fmt::format(
        "CUDA_DEVICE_MAX_CONNECTIONS is not exported before the launch line, with {} on {}: "
        "Megatron-LM asserts \"Using tensor model parallelism or context parallelism require setting "
        "the environment variable CUDA_DEVICE_MAX_CONNECTIONS to 1\" ([ML] megatron/training/arguments.py:1453-1479)",
        env::tp_cp_text(f),
        guessed ? "an assumed " + generation_text(o, f)
                    + " GPU (the script names none; from Blackwell on it is not required)"
                : generation_text(o, f))
        + assumed_note(job),
      "export CUDA_DEVICE_MAX_CONNECTIONS=1 before the launch line", at);
    insert_export(context.model, *job.launch, k_cdmc, "1", finding);
  }
  if (job.env("NCCL_GRAPH_REGISTER") == nullptr && script_expandable(job) && f.cuda_graphs != config::CudaGraphs::none
      && keys_known(job, "env.nccl_graph_register")) {
    const bool te = f.cuda_graphs == config::CudaGraphs::transformer_engine;
    auto& finding = context.add(
      te ? Severity::error : Severity::warning, "env.nccl_graph_register",
      fmt::format("NCCL_GRAPH_REGISTER is not exported while PYTORCH_CUDA_ALLOC_CONF has expandable_segments:True "
                  "and {} CUDA graphs are on: {} ([ML] megatron/training/arguments.py:1961-1968)",
                  config::to_string(f.cuda_graphs),
                  te ? "Megatron asserts it must be 0 \"to avoid illegal memory access\"" : "graph capture risks an illegal memory access"),
      "export NCCL_GRAPH_REGISTER=0 before the launch line", at);
    insert_export(context.model, *job.launch, "NCCL_GRAPH_REGISTER", "0", finding);
  }
}

} // namespace

void env_findings(FindingContext& context)
{
  const ScriptJob& job = context.job;
  // The environment policy is CUDA's, NCCL's and PyTorch-on-CUDA's: on an
  // Ascend NPU (torch_npu, HCCL) none of its variables means what it says.
  if (job.launch == nullptr || context.options.gpu_vendor == "ascend") {
    return;
  }
  config::JobSpec spec = job.spec;
  if (!job.megatron) {
    spec.source_file = k_unknown_file;
    spec.env.clear();
    for (const auto& a : job.environment) {
      const Position p = context.model.position(a.offset);
      spec.locations["env." + a.name] = SourceLocation{context.path, p.line, p.column};
      if (a.known && !a.value.empty()) {
        spec.env.emplace_back(a.name, a.value.front().text());
      }
    }
  }
  const env::JobFeatures features = env::features_of(spec);
  const env::Environment composed = env::compose(spec, {});
  for (const auto& d : composed.findings) {
    if (!d.where || d.where->file != context.path || !keys_known(job, d.rule) || d.rule == "env.secret_in_job") {
      continue;  // secrets: audit.secret_in_script says it on the script's own terms
    }
    if ((d.rule == "env.nccl_graph_register" || d.rule == "env.nccl_ub_expandable_segments") && !script_expandable(job)) {
      continue;
    }
    AuditFinding finding;
    finding.diagnostic = d;
    rewrite(context, features, finding);
    context.out.push_back(std::move(finding));
  }
  missing_variables(context, features);
}

} // namespace lg::audit::detail
