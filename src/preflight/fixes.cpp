// The memory fixes as JobSpec transformations, with the throughput costs the
// Megatron Bridge memory-tuning guide measured.
#include "preflight/fixes.hpp"

#include "preflight/fixes_parallelism.hpp"

#include "env/allocator_conf.hpp"
#include "env/allocator_settings.hpp"
#include "env/compose.hpp"

#include <algorithm>
#include <string>

namespace lg::preflight {
namespace {

using config::JobSpec;
using config::RecomputeGranularity;

using env::k_alloc_conf;

// Return the value of the last `key` in the job's env, if any.
const std::string* env_value(const JobSpec& spec, const char* key)
{
  const std::string* found = nullptr;
  for (const auto& [k, v] : spec.env) {
    if (k == key) {
      found = &v;
    }
  }
  return found;
}

// Expandable segments, merged key by key into the job's own allocator string.
// Does not apply when they are already in effect, with NCCL user buffers
// (incompatible), or with backend:cudaMallocAsync (which ignores them).
std::optional<AppliedFix> fix_expandable(const JobSpec& spec)
{
  const env::AllocatorSettings current = env::allocator_settings_of(env::compose(spec, {}));
  if (current.expandable_in_effect() || current.cuda_malloc_async || spec.training.nccl_ub) {
    return std::nullopt;
  }
  AppliedFix fix{spec, "", "0% (no throughput cost)"};
  const std::string* value = env_value(spec, k_alloc_conf);
  env::AllocConf conf = env::parse_alloc_conf(value != nullptr ? *value : std::string());
  conf.erase("expandable_segments");
  conf.set("expandable_segments", "True");
  const std::string merged = env::format_alloc_conf(conf);
  auto& vars = fix.spec.env;
  vars.erase(std::remove_if(vars.begin(), vars.end(), [](const auto& kv) { return kv.first == k_alloc_conf; }),
             vars.end());
  vars.emplace_back(k_alloc_conf, merged);
  fix.description = std::string(k_alloc_conf) + "=" + merged;
  return fix;
}

std::optional<AppliedFix> fix_regather(const JobSpec& spec)
{
  const auto& p = spec.parallelism;
  if (spec.peft.method != "lora" || !p.sequence_parallel || p.tp <= 1 ||
      spec.peft.sequence_parallel_input_regather) {
    return std::nullopt;
  }
  AppliedFix fix{spec, "LoRA(sequence_parallel_input_regather=True)",
                 "-0.3% to -6.7% (GPT-OSS-120B -0.34%, Qwen3-8B TP2 -6.74%)"};
  fix.spec.peft.sequence_parallel_input_regather = true;
  return fix;
}


std::optional<AppliedFix> fix_recompute(const JobSpec& spec, const char* module,
                                        const char* cost)
{
  auto& r = spec.training.recompute;
  if (r.granularity == RecomputeGranularity::full || config::recomputes_module(r, module)) {
    return std::nullopt;
  }
  AppliedFix fix{spec, "", cost};
  auto& modules = fix.spec.training.recompute.modules;
  modules = config::recompute_modules(r);  // keeps the implicit core_attn default
  fix.spec.training.recompute.granularity = RecomputeGranularity::selective;
  modules.push_back(module);
  std::string list;
  for (const auto& m : modules) {
    list += (list.empty() ? "" : ",") + m;
  }
  fix.description = "recompute_granularity=selective recompute_modules=[" + list + "]";
  return fix;
}

std::optional<AppliedFix> fix_distributed_optimizer(const JobSpec& spec)
{
  const int group = config::data_parallel_size(spec) * spec.parallelism.cp;
  if (spec.training.distributed_optimizer || spec.training.fsdp != config::Fsdp::none ||
      group <= 1) {
    return std::nullopt;
  }
  AppliedFix fix{spec, "use_distributed_optimizer=True", "~-1-2%"};
  fix.spec.training.distributed_optimizer = true;
  return fix;
}

} // namespace

const std::vector<std::string>& fix_ids()
{
  static const std::vector<std::string> ids = {
      "expandable_segments", "lora_input_regather", "recompute_core_attn", "increase_pp",
      "recompute_mlp",       "distributed_optimizer", "increase_tp"};
  return ids;
}

std::optional<AppliedFix> apply_fix(const JobSpec& spec, std::string_view fix)
{
  if (fix == "expandable_segments") {
    return fix_expandable(spec);
  }
  if (fix == "lora_input_regather") {
    return fix_regather(spec);
  }
  if (fix == "recompute_core_attn") {
    return fix_recompute(spec, "core_attn",
                         "~+4% step time (Moonlight-16B: +3.85%); saves memory only with "
                         "unfused attention");
  }
  if (fix == "increase_pp") {
    return fix_increase_pp(spec);
  }
  if (fix == "recompute_mlp") {
    return fix_recompute(spec, "mlp", "-16% (Llama3 70B, ~3 GB saved)");
  }
  if (fix == "distributed_optimizer") {
    return fix_distributed_optimizer(spec);
  }
  if (fix == "increase_tp") {
    return fix_increase_tp(spec);
  }
  return std::nullopt;
}

} // namespace lg::preflight
