// The estimate's verdict as findings: oom is an error, borderline a warning.
// The fix is the first what-if entry (in the Megatron Bridge memory-tuning guide's order) that
// brings the peak under the GPU's capacity, else the first that saves memory.
#include "rules/rule.hpp"

#include "util/bytes.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace lg::rules {

namespace {

using estimate::Verdict;

// "activations 31.20 GiB" for the largest component of the most loaded stage.
std::string largest_component(const estimate::Estimate& e)
{
  const estimate::StageEstimate* stage = nullptr;
  for (const auto& s : e.stages) {
    if (s.pp_rank == e.most_loaded_pp_rank) {
      stage = &s;
    }
  }
  if (stage == nullptr || stage->components.empty()) {
    return "unknown";
  }
  const auto it = std::max_element(stage->components.begin(), stage->components.end(),
                                   [](const auto& a, const auto& b) { return a.second < b.second; });
  return fmt::format("{} {}", it->first, format_bytes(it->second));
}

std::string memory_fix(const estimate::Estimate& e)
{
  const estimate::WhatIf* pick = nullptr;
  for (const auto& w : e.what_if) {
    if (w.saves_bytes > 0 && w.peak_bytes <= e.capacity_bytes) {
      pick = &w;
      break;
    }
  }
  bool fits_alone = pick != nullptr;
  if (pick == nullptr) {
    // No single fix fits: name the one that saves most, and say so.
    for (const auto& w : e.what_if) {
      if (w.saves_bytes > 0 && (pick == nullptr || w.saves_bytes > pick->saves_bytes)) {
        pick = &w;
      }
    }
  }
  if (pick == nullptr) {
    return "reduce memory: recompute, more pipeline stages (keeping DP), distributed optimizer; "
           "see `launchguard estimate`";
  }
  return fmt::format("{}{} [{}]: peak {} -> {}{}", fits_alone ? "" : "no single fix fits; the largest saving: ",
                     pick->description, pick->fix,
                     format_bytes(e.peak_bytes), format_bytes(pick->peak_bytes),
                     pick->throughput_cost.empty()
                       ? std::string()
                       : fmt::format(", throughput {}", pick->throughput_cost));
}

std::optional<Finding> verdict_finding(const Context& ctx, Verdict verdict, const char* what)
{
  const auto& e = ctx.estimate;
  if (e.verdict != verdict) {
    return std::nullopt;
  }
  return Finding{fmt::format("estimated peak {} on pp rank {} {} the {} capacity of {}; "
                             "largest component: {}",
                             format_bytes(e.peak_bytes), e.most_loaded_pp_rank, what,
                             ctx.spec.cluster.gpu_info.display_name,
                             format_bytes(e.capacity_bytes), largest_component(e)),
                 memory_fix(e), "cluster.gpu"};
}

// A feature the estimator does not model: say so instead of a verdict.
std::optional<Finding> not_modelled(const Context& ctx)
{
  const auto& e = ctx.estimate;
  if (e.verdict != Verdict::unknown || e.not_modelled.empty()) {
    return std::nullopt;
  }
  std::string reasons;
  for (const auto& r : e.not_modelled) {
    reasons += (reasons.empty() ? "" : "; ") + r;
  }
  return Finding{fmt::format("memory verdict unknown: {}; the modelled part is {} on pp rank {}",
                             reasons, format_bytes(e.peak_bytes), e.most_loaded_pp_rank),
                 "check the peak with a short run (torch.cuda.max_memory_allocated) before the "
                 "full job",
                 "cluster.gpu"};
}

std::optional<Finding> oom(const Context& ctx)
{
  return verdict_finding(ctx, Verdict::oom, "exceeds");
}

std::optional<Finding> borderline(const Context& ctx)
{
  return verdict_finding(ctx, Verdict::borderline, "is close to");
}

constexpr Rule k_rules[] = {
  {"memory.oom", Severity::error, "the estimated per-GPU peak exceeds the GPU's capacity",
   "launchguard estimate ([SK] nemo-mbridge-perf-memory-tuning/SKILL.md:284-294, Failure Diagnosis)", oom},
  {"memory.not_modelled", Severity::warning,
   "the job uses a feature that changes memory and that the estimator does not model",
   "launchguard estimate (not_modelled)", not_modelled},
  {"memory.borderline", Severity::warning,
   "the estimated per-GPU peak is close to the GPU's capacity",
   "launchguard estimate ([SK] nemo-mbridge-perf-memory-tuning/SKILL.md:49-68, Quick Decision)", borderline},
};

} // namespace

std::span<const Rule> memory_rules()
{
  return k_rules;
}

} // namespace lg::rules
