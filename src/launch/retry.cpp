#include "launch/retry.hpp"

#include "diagnose/category.hpp"

#include "preflight/fixes.hpp"
#include "preflight/judge.hpp"
#include "slurm/parse.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace lg::launch {

bool is_memory_failure(const std::string& category)
{
  return diagnose::is_memory_failure(category);
}

bool is_infrastructure_failure(const std::string& category)
{
  return diagnose::is_infrastructure_failure(category);
}

bool is_node_failure(const std::string& category, slurm::JobState slurm_state)
{
  using diagnose::Category;
  return category == diagnose::to_string(Category::gpu_hardware) ||
         (category == diagnose::to_string(Category::slurm_preemption_or_node_failure) && slurm_state == slurm::JobState::node_fail);
}

config::JobSpec with_excluded_nodes(config::JobSpec spec, const std::vector<std::string>& previous,
                                    const std::vector<std::string>& nodes)
{
  auto& args = spec.slurm.extra_args;
  if (!previous.empty()) {
    const std::string old = slurm::exclude_argument(previous);
    args.erase(std::remove(args.begin(), args.end(), old), args.end());
  }
  if (!nodes.empty()) {
    args.push_back(slurm::exclude_argument(nodes));
  }
  return spec;
}

namespace {

// A hardware failure on a named node: the next attempt leaves it out (and
// every node earlier attempts left out).
RetryDecision exclude_node_retry(const config::JobSpec& spec, const RetryInput& input)
{
  RetryDecision decision;
  decision.kind = RetryKind::unchanged;
  decision.exclude = input.excluded;
  if (std::find(decision.exclude.begin(), decision.exclude.end(), input.host) == decision.exclude.end()) {
    decision.exclude.push_back(input.host);
  }
  decision.spec = with_excluded_nodes(spec, input.excluded, decision.exclude);
  decision.reason = fmt::format("{} on node {}: resubmitting without it ({})", input.category, input.host,
                                slurm::exclude_argument(decision.exclude));
  return decision;
}

constexpr std::string_view k_useless_core_attn_rule = "recompute.core_attn_with_fused_attention";

bool tried(const RetryInput& input, const std::string& fix)
{
  return std::find(input.fixes_tried.begin(), input.fixes_tried.end(), fix) != input.fixes_tried.end();
}

// The ladder: the job's [retry] fixes in order, the diagnosis's suggestion
// first when the job allows it. Never more TP automatically.
std::vector<std::string> ladder(const config::JobSpec& spec, const RetryInput& input)
{
  std::vector<std::string> steps;
  const auto& allowed = spec.retry.fixes;
  const bool suggestion_allowed =
    std::find(allowed.begin(), allowed.end(), input.suggested_change) != allowed.end();
  if (!input.suggested_change.empty() && suggestion_allowed) {
    steps.push_back(input.suggested_change);
  }
  for (const auto& fix : allowed) {
    if (std::find(steps.begin(), steps.end(), fix) == steps.end()) {
      steps.push_back(fix);
    }
  }
  steps.erase(std::remove(steps.begin(), steps.end(), std::string("increase_tp")), steps.end());
  return steps;
}

RetryDecision memory_retry(const config::JobSpec& spec, const RetryInput& input)
{
  RetryDecision decision;
  std::vector<std::string> skipped;
  for (const auto& fix : ladder(spec, input)) {
    if (tried(input, fix)) {
      skipped.push_back(fix + " (tried)");
      continue;
    }
    // A fragmentation fix cannot help a capacity OOM with segments already on,
    // and apply_fix returns nullopt for fixes that do not apply.
    auto applied = preflight::apply_fix(spec, fix);
    if (!applied) {
      skipped.push_back(fix + " (does not apply)");
      continue;
    }
    preflight::Options options;
    options.with_what_if = false;
    const preflight::JudgedJob judged = preflight::judge(applied->spec, options);
    const estimate::Estimate& predicted = judged.estimate;
    if (predicted.verdict == estimate::Verdict::oom && fix != "expandable_segments") {
      skipped.push_back(fix + " (predicted not to fit)");
      continue;
    }
    // A fix that breaks a constraint (more PP than the layers allow a VPP
    // split for, say) would only trade an OOM for a config error.
    if (judged.has_errors()) {
      skipped.push_back(fix + " (breaks a constraint rule)");
      continue;
    }
    // core_attn recompute with fused/flash attention saves nothing: check
    // warns so, and the ladder must not spend an attempt on it.
    if (fix == "recompute_core_attn" &&
        std::any_of(judged.findings.begin(), judged.findings.end(),
                    [](const Diagnostic& d) { return d.rule == k_useless_core_attn_rule; })) {
      skipped.push_back(fix + " (useless with fused attention)");
      continue;
    }
    decision.kind = RetryKind::with_fix;
    decision.fix = fix;
    decision.description = applied->description;
    decision.spec = std::move(applied->spec);
    decision.reason = fmt::format("{}: retry with {} ({}); predicted peak {:.1f} GiB, {}", input.category, fix,
                                  decision.description, predicted.peak_bytes / (1024.0 * 1024 * 1024),
                                  estimate::to_string(predicted.verdict));
    return decision;
  }
  decision.reason = fmt::format("{}: no fix left on the ladder{}{}", input.category, skipped.empty() ? "" : ": ",
                                fmt::format("{}", fmt::join(skipped, ", ")));
  return decision;
}

} // namespace

RetryDecision decide_retry(const config::JobSpec& spec, const RetryInput& input)
{
  if (is_memory_failure(input.category)) {
    return memory_retry(spec, input);
  }
  if (is_node_failure(input.category, input.slurm_state) && slurm::is_node_name(input.host)) {
    return exclude_node_retry(spec, input);
  }
  RetryDecision decision;
  if (diagnose::is_hang_failure(input.category)) {
    // A stuck peer, link or file system is often gone on the next
    // allocation; the same hang twice in one run is the job's own.
    const auto& earlier = input.earlier_categories;
    if (std::find(earlier.begin(), earlier.end(), input.category) != earlier.end()) {
      decision.reason = fmt::format("{}: the run hung before; a hang that comes back is the job's own (read the "
                                    "silent ranks' stacks and the NCCL flight-recorder dumps)",
                                    input.category);
    } else {
      decision.kind = RetryKind::unchanged;
      decision.spec = spec;
      decision.reason = fmt::format("{}: resubmitting unchanged once (a hang is often transient: a stuck peer, "
                                    "link or file system)",
                                    input.category);
    }
    return decision;
  }
  if (is_infrastructure_failure(input.category)) {
    if (input.retry_infra) {
      decision.kind = RetryKind::unchanged;
      decision.spec = spec;
      decision.reason = fmt::format("{}: infrastructure failure, resubmitting unchanged (--retry-infra)",
                                    input.category);
    } else {
      decision.reason = fmt::format("{}: infrastructure failure; resubmit with --retry-infra to retry unchanged",
                                    input.category);
    }
    return decision;
  }
  if (!diagnose::is_failure(input.category)) {
    decision.reason = "the job did not fail";
  } else {
    decision.reason = fmt::format("{}: not retried automatically (a retry cannot fix it without a change "
                                  "only a person can make)",
                                  input.category);
  }
  return decision;
}

} // namespace lg::launch
