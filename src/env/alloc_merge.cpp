// PYTORCH_CUDA_ALLOC_CONF is the one variable whose layers merge instead of
// replacing each other: each key keeps the layer that set it last.
#include "env/alloc_merge.hpp"

#include "env/allocator_conf.hpp"
#include "env/allocator_settings.hpp"
#include "util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>

namespace lg::env {

namespace {

std::optional<SourceLocation> where_for(const config::JobSpec& spec, Layer layer)
{
  if (layer == Layer::command_line) {
    return std::nullopt;
  }
  return spec.location_of(std::string("env.") + k_alloc_conf);
}

const char* origin_words(Layer layer)
{
  return layer == Layer::command_line ? "--set" : "the job's [env]";
}

// PyTorch refuses the whole string at the first CUDA allocation: one error
// finding per user layer whose value it would reject, with its message.
void check_user_value(const std::string& value, const config::JobSpec& spec, Layer layer,
                      std::vector<Diagnostic>& findings)
{
  const AllocatorSettings settings = parse_allocator_settings(value);
  if (!settings.error) {
    if (!settings.ignored_by_async.empty()) {
      findings.push_back(Diagnostic{
        Severity::warning, "env.alloc_conf_async_ignores",
        fmt::format("PYTORCH_CUDA_ALLOC_CONF from {} chooses backend:cudaMallocAsync and sets {}, which only "
                    "the native caching allocator reads; PyTorch warns \"{}\" and ignores them",
                    origin_words(layer), join(settings.ignored_by_async, ", "), k_async_ignores_warning),
        "drop those keys, or drop backend:cudaMallocAsync to keep them", where_for(spec, layer)});
    }
    return;
  }
  const AllocatorError& e = *settings.error;
  findings.push_back(Diagnostic{
    Severity::error, k_allocator_config_error,
    fmt::format("PYTORCH_CUDA_ALLOC_CONF \"{}\" from {} is rejected by PyTorch at the first CUDA allocation, "
                "so the job dies at start-up; upstream: RuntimeError: {} (PyTorch 2.4-2.7: \"{}\")",
                value, origin_words(layer), e.message, e.message_before_2_8),
    e.fix, where_for(spec, layer)});
}

void report_conflict(const AllocEntry& entry, const std::string& policy_value,
                     const Decision& policy, const config::JobSpec& spec, Layer layer,
                     std::vector<Diagnostic>& findings)
{
  findings.push_back(Diagnostic{
    Severity::warning, "env.alloc_conf_conflict",
    fmt::format("PYTORCH_CUDA_ALLOC_CONF key \"{}\": {} sets \"{}\", the policy sets \"{}\" ({}); "
                "the user value is kept",
                entry.key, origin_words(layer), entry.value, policy_value, policy.reason),
    fmt::format("drop \"{}\" from your PYTORCH_CUDA_ALLOC_CONF unless you mean to override it",
                entry.key),
    where_for(spec, layer)});
}

void report_nccl_ub_removal(const config::JobSpec& spec, const Decision& policy,
                            std::vector<Diagnostic>& findings)
{
  findings.push_back(Diagnostic{
    Severity::warning, "env.nccl_ub_expandable_segments",
    "expandable_segments:True left out of PYTORCH_CUDA_ALLOC_CONF because training.nccl_ub is "
    "on (" + policy.citation + "); allocator fragmentation can cause OOMs again",
    "if the job runs out of memory, try turning training.nccl_ub off and re-composing",
    spec.location_of("training.nccl_ub")});
}

std::string describe(const Decision& policy, const std::map<std::string, Layer>& origin)
{
  std::string reason = policy.reason;
  for (const auto& [key, layer] : origin) {
    if (layer != Layer::policy) {
      reason += fmt::format("{}{} from {}", reason.empty() ? "" : "; ", key, origin_words(layer));
    }
  }
  return reason;
}

} // namespace

Variable merge_alloc_conf(const JobFeatures& features, const config::JobSpec& spec,
                          const std::vector<UserValue>& users, std::vector<Diagnostic>& findings)
{
  const Decision policy = policy_alloc_conf(features);
  AllocConf conf = parse_alloc_conf(policy.value);
  std::map<std::string, Layer> origin;
  for (const auto& entry : conf.entries) {
    origin[entry.key] = Layer::policy;
  }
  Layer top = Layer::policy;
  for (const auto& user : users) {
    if (user.name != k_alloc_conf) {
      continue;
    }
    const AllocConf parsed = parse_alloc_conf(user.value);
    check_user_value(user.value, spec, user.layer, findings);
    const bool rejected = !parse_allocator_settings(user.value).valid();
    for (const auto& entry : parsed.entries) {
      const auto previous = conf.get(entry.key);
      // A value PyTorch rejects already has its error; no conflict on top.
      if (previous && *previous != entry.value && origin[entry.key] == Layer::policy && !rejected) {
        report_conflict(entry, *previous, policy, spec, user.layer, findings);
      }
      conf.set(entry.key, entry.value);
      origin[entry.key] = user.layer;
    }
    if (!parsed.entries.empty()) {
      top = user.layer;
    }
  }
  // backend:cudaMallocAsync replaces the caching allocator: the policy's
  // expandable_segments would only earn PyTorch's "ignores" warning.
  if (conf.get("backend") == "cudaMallocAsync" && origin["expandable_segments"] == Layer::policy) {
    conf.erase("expandable_segments");
    origin.erase("expandable_segments");
  }
  const auto expandable = conf.get("expandable_segments");
  if (features.nccl_ub && !(expandable && alloc_value_is_true(*expandable))) {
    report_nccl_ub_removal(spec, policy, findings);
  }
  Variable v{k_alloc_conf, format_alloc_conf(conf), conf.empty() ? Action::unset : Action::set,
             top, policy.rule, describe(policy, origin), policy.citation};
  return v;
}

bool alloc_has_expandable(const Variable& alloc)
{
  if (alloc.action == Action::unset) {
    return false;
  }
  return parse_allocator_settings(alloc.value).expandable_in_effect();
}

} // namespace lg::env
