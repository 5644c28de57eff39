// Checks of the final environment against upstream asserts. The policy layer
// always satisfies them; a finding here means a user value (job [env] or
// --set) broke one, and the value was kept as the user asked.
#include "env/hard_rules.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <string_view>

namespace lg::env {

namespace {

constexpr const char* k_cdmc = "CUDA_DEVICE_MAX_CONNECTIONS";

// The value of `name` as the job will see it, or "unset".
std::string shown(const Environment& environment, const char* name)
{
  const Variable* v = environment.find(name);
  if (v == nullptr || v->action == Action::unset) {
    return "unset";
  }
  return "\"" + v->value + "\"";
}

bool equals(const Environment& environment, const char* name, std::string_view value)
{
  const Variable* v = environment.find(name);
  return v != nullptr && v->action == Action::set && v->value == value;
}

// A finding about variable `name`, placed on its [env] line; a value from
// --set (or the policy) has no line in the job file.
Diagnostic finding(Severity severity, std::string rule, std::string message, std::string fix,
                   const config::JobSpec& spec, const Environment& env, const char* name)
{
  const Variable* v = env.find(name);
  const bool in_job = v != nullptr && v->layer == Layer::job;
  return Diagnostic{severity, std::move(rule), std::move(message), std::move(fix),
                    in_job ? spec.location_of(std::string("env.") + name) : std::nullopt};
}

void check_connections(const JobFeatures& f, const config::JobSpec& spec,
                       const Environment& env, std::vector<Diagnostic>& out)
{
  if (f.fsdp && equals(env, k_cdmc, "1")) {
    out.push_back(finding(
      Severity::error, "env.cuda_device_max_connections_fsdp",
      "CUDA_DEVICE_MAX_CONNECTIONS=1 with FSDP: Megatron stops at startup with \"FSDP requires "
      "CUDA_DEVICE_MAX_CONNECTIONS > 1 or unset.\" ([ML] megatron/training/arguments.py:"
      "1048-1049,1166-1167; [MB] src/megatron/bridge/training/config.py:1110-1112)",
      "remove CUDA_DEVICE_MAX_CONNECTIONS from [env] (the composer sets 8) or set it above 1",
      spec, env, k_cdmc));
  }
  const bool tp_or_cp = f.tp > 1 || f.cp > 1;
  if (!f.fsdp && !is_blackwell_or_newer(f) && tp_or_cp && !f.ep_a2a_overlap
      && !equals(env, k_cdmc, "1")) {
    const bool mlm = f.framework == config::Framework::megatron_lm;
    out.push_back(finding(
      mlm ? Severity::error : Severity::warning, "env.cuda_device_max_connections_tp_cp",
      fmt::format("CUDA_DEVICE_MAX_CONNECTIONS is {} with {} on {}: {}", shown(env, k_cdmc), tp_cp_text(f),
                  config::to_string(f.generation),
                  mlm ? "Megatron-LM asserts \"Using tensor model parallelism or context "
                        "parallelism require setting the environment variable "
                        "CUDA_DEVICE_MAX_CONNECTIONS to 1\" ([ML] megatron/training/"
                        "arguments.py:1453-1479)"
                      : "TP/CP communication will not overlap the GEMMs; MCore warns "
                        "([ML] megatron/core/tensor_parallel/layers.py:908-924)"),
      "remove CUDA_DEVICE_MAX_CONNECTIONS from [env] (the composer sets 1)", spec, env, k_cdmc));
  }
  if (f.ep_a2a_overlap && equals(env, k_cdmc, "1")) {
    out.push_back(finding(
      Severity::warning, "env.cuda_device_max_connections_ep_overlap",
      "CUDA_DEVICE_MAX_CONNECTIONS=1 with EP A2A overlap: the MoE README requires a value > 1 "
      "([ML] megatron/core/transformer/moe/README.md:437)",
      "set CUDA_DEVICE_MAX_CONNECTIONS to 16 or 32, or remove it from [env]", spec, env, k_cdmc));
  }
}

void check_allocator(const JobFeatures& f, const config::JobSpec& spec, const Environment& env,
                     std::vector<Diagnostic>& out)
{
  const bool expandable = has_expandable_segments(env);
  if (f.nccl_ub && expandable) {
    out.push_back(finding(
      Severity::error, "env.nccl_ub_expandable_segments",
      "PYTORCH_CUDA_ALLOC_CONF sets expandable_segments:True while training.nccl_ub is on: MCore "
      "raises \"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True is currently not supported with "
      "nccl_ub due to compatibility issue with torch.cuda.MemPool API.\" on torch < 2.11 "
      "([ML] megatron/core/distributed/distributed_data_parallel_config.py:262-267)",
      "remove expandable_segments:True from PYTORCH_CUDA_ALLOC_CONF, or turn off training.nccl_ub",
      spec, env, "PYTORCH_CUDA_ALLOC_CONF"));
  }
  if (expandable && f.cuda_graphs != config::CudaGraphs::none
      && !equals(env, "NCCL_GRAPH_REGISTER", "0")) {
    const bool te = f.cuda_graphs == config::CudaGraphs::transformer_engine;
    out.push_back(finding(
      te ? Severity::error : Severity::warning, "env.nccl_graph_register",
      fmt::format("NCCL_GRAPH_REGISTER is {} with expandable_segments:True and {} CUDA graphs: {} "
                  "([ML] megatron/training/arguments.py:1961-1968; "
                  "[ML] megatron/core/transformer/cuda_graphs.py:2193-2199)",
                  shown(env, "NCCL_GRAPH_REGISTER"), config::to_string(f.cuda_graphs),
                  te ? "Megatron asserts it must be 0 \"to avoid illegal memory access\""
                     : "graph capture risks an illegal memory access"),
      "remove NCCL_GRAPH_REGISTER from [env] (the composer sets 0)", spec, env, "NCCL_GRAPH_REGISTER"));
  }
}

void check_offload(const JobFeatures& f, const config::JobSpec& spec, const Environment& env,
                   std::vector<Diagnostic>& out)
{
  if (f.fine_grained_offloading && !equals(env, "NVTE_CPU_OFFLOAD_V1", "1")) {
    out.push_back(finding(
      Severity::error, "env.nvte_cpu_offload_v1",
      fmt::format("NVTE_CPU_OFFLOAD_V1 is {} with fine-grained activation offloading: Megatron "
                  "asserts \"For fine-grained activation offloading with TE >= 2.10.0, "
                  "NVTE_CPU_OFFLOAD_V1 should be set to 1 to avoid offloading weights.\" "
                  "([ML] megatron/training/arguments.py:1935-1940; "
                  "[MB] src/megatron/bridge/training/config.py:2182-2215)",
                  shown(env, "NVTE_CPU_OFFLOAD_V1")),
      "remove NVTE_CPU_OFFLOAD_V1 from [env] (the composer sets 1)", spec, env, "NVTE_CPU_OFFLOAD_V1"));
  }
  const Variable* renamed = env.find("PYTORCH_ALLOC_CONF");
  if (renamed != nullptr && renamed->layer != Layer::policy) {
    out.push_back(finding(
      Severity::warning, "env.pytorch_alloc_conf_name",
      "PYTORCH_ALLOC_CONF is set: Megatron's guards read only PYTORCH_CUDA_ALLOC_CONF, and "
      "PyTorch 2.9.1 ignored PYTORCH_ALLOC_CONF=expandable_segments:True for CUDA "
      "(pytorch/pytorch#183387)",
      "put the allocator settings in PYTORCH_CUDA_ALLOC_CONF", spec, env, "PYTORCH_ALLOC_CONF"));
  }
}

bool same_ignoring_case(std::string_view a, std::string_view b)
{
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Debugging switches PyTorch and NCCL document for finding an error, left on
// in a training job: each costs every step, not only the failing one.
struct Switch
{
  const char* name;
  const char* value;  // the debugging value (compared without case)
  const char* effect;
};

constexpr Switch k_switches[] = {
  {"CUDA_LAUNCH_BLOCKING", "1",
   "every CUDA kernel launch waits for the kernel to finish, so the CPU never runs ahead of the GPU and "
   "communication kernels stop overlapping compute; PyTorch documents it for locating an error on the GPU "
   "(pytorch/pytorch docs/source/notes/cuda.rst, \"Asynchronous execution\")"},
  {"PYTORCH_NO_CUDA_MEMORY_CACHING", "1",
   "PyTorch's caching allocator is off: every tensor is a cudaMalloc/cudaFree of its own, which synchronizes "
   "the device and fragments memory; PyTorch documents it for memory checkers such as cuda-memcheck "
   "(pytorch/pytorch docs/source/notes/cuda.rst, \"Memory management\")"},
  {"NCCL_DEBUG", "TRACE",
   "NCCL's deepest log level, for debugging NCCL itself: besides INFO it logs every NCCL API call on every rank "
   "(NCCL user guide, Troubleshooting, \"Logging\": TRACE is \"replayable traces, plus CALL APIs\"; WARN is the "
   "production minimum), so a long run writes a log line per collective per GPU"},
  {"TORCH_DISTRIBUTED_DEBUG", "DETAIL",
   "PyTorch wraps every process group to check each collective's shapes and order across ranks before it runs, "
   "and logs DDP runtime statistics; its documentation says this may impact performance and is for debugging "
   "(pytorch/pytorch docs/source/distributed.rst, \"Debugging torch.distributed applications\")"},
};

void check_debug(const config::JobSpec& spec, const Environment& env, std::vector<Diagnostic>& out)
{
  for (const Switch& s : k_switches) {
    const Variable* v = env.find(s.name);
    if (v == nullptr || v->action != Action::set || !same_ignoring_case(v->value, s.value)) {
      continue;
    }
    out.push_back(finding(Severity::warning, "env.debug_setting",
                          fmt::format("{}={} is a debugging setting: {}", s.name, v->value, s.effect),
                          fmt::format("remove {} from the job's environment unless this run is meant to debug; if "
                                      "it was added to work around a hang or a crash, that failure is still there",
                                      s.name),
                          spec, env, s.name));
  }
}

} // namespace

const char* debug_setting_effect(std::string_view name, std::string_view value)
{
  for (const Switch& s : k_switches) {
    if (name == s.name && same_ignoring_case(value, s.value)) {
      return s.effect;
    }
  }
  return nullptr;
}

std::vector<Diagnostic> check_hard_rules(const JobFeatures& features,
                                         const config::JobSpec& spec,
                                         const Environment& environment)
{
  std::vector<Diagnostic> out;
  check_connections(features, spec, environment, out);
  check_allocator(features, spec, environment, out);
  check_offload(features, spec, environment, out);
  check_debug(spec, environment, out);
  return out;
}

} // namespace lg::env
