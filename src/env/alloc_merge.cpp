// PYTORCH_CUDA_ALLOC_CONF is the one variable whose layers merge instead of
// replacing each other: each key keeps the layer that set it last.
#include "env/alloc_merge.hpp"

#include "env/allocator_conf.hpp"
#include "util/edit_distance.hpp"

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

void check_parts(const AllocConf& user, const config::JobSpec& spec, Layer layer,
                 std::vector<Diagnostic>& findings)
{
  for (const auto& part : user.malformed) {
    findings.push_back(Diagnostic{
      Severity::error, "env.alloc_conf_malformed",
      fmt::format("PYTORCH_CUDA_ALLOC_CONF part \"{}\" from {} is not key:value (PyTorch rejects "
                  "the whole setting at the first CUDA allocation); it is left out",
                  part, origin_words(layer)),
      "write each setting as key:value, separated by commas", where_for(spec, layer)});
  }
  const auto& known = known_alloc_keys();
  for (const auto& entry : user.entries) {
    if (std::find(known.begin(), known.end(), entry.key) != known.end()) {
      continue;
    }
    const auto near = nearest(entry.key, known);
    findings.push_back(Diagnostic{
      Severity::warning, "env.alloc_conf_unknown_key",
      fmt::format("PYTORCH_CUDA_ALLOC_CONF key \"{}\" from {} is not a caching-allocator key this "
                  "version of launchguard knows; PyTorch stops with \"Unrecognized key\" if it "
                  "does not know it either",
                  entry.key, origin_words(layer)),
      near ? fmt::format("did you mean \"{}\"?", *near) : std::string("check the key's spelling"),
      where_for(spec, layer)});
  }
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
    check_parts(parsed, spec, user.layer, findings);
    for (const auto& entry : parsed.entries) {
      const auto previous = conf.get(entry.key);
      if (previous && *previous != entry.value && origin[entry.key] == Layer::policy) {
        report_conflict(entry, *previous, policy, spec, user.layer, findings);
      }
      conf.set(entry.key, entry.value);
      origin[entry.key] = user.layer;
    }
    if (!parsed.entries.empty()) {
      top = user.layer;
    }
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
  const auto value = parse_alloc_conf(alloc.value).get("expandable_segments");
  return value && alloc_value_is_true(*value);
}

} // namespace lg::env
