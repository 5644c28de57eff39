// The catalogue: the topic tables in order, and check(), which runs them.
#include "rules/rule.hpp"
#include "rules/rules.hpp"

#include <algorithm>
#include <array>

namespace lg::rules {

namespace {

using TopicFn = std::span<const Rule> (*)();

// Catalogue order. Within a severity, findings keep this order.
constexpr std::array<TopicFn, 14> k_topics = {
  model_rules,       parallelism_rules, pipeline_rules,          offload_rules,
  recompute_rules,   sequence_parallel_rules, context_parallel_rules, moe_rules,
  ep_overlap_rules,  precision_rules,   cuda_graphs_rules,       optimizer_rules,
  memory_rules,      advice_rules,
};

int severity_rank(Severity severity)
{
  switch (severity) {
  case Severity::error:
    return 0;
  case Severity::warning:
    return 1;
  case Severity::advice:
    return 2;
  }
  return 2;
}

std::vector<RuleInfo> build_catalogue()
{
  std::vector<RuleInfo> out;
  for (const auto topic : k_topics) {
    for (const auto& rule : topic()) {
      out.push_back(RuleInfo{rule.id, rule.severity, rule.summary, rule.source});
    }
  }
  return out;
}

} // namespace

const std::vector<RuleInfo>& catalogue()
{
  static const std::vector<RuleInfo> k_catalogue = build_catalogue();
  return k_catalogue;
}

const RuleInfo* find_rule(const std::string& id)
{
  const auto& all = catalogue();
  const auto it = std::find_if(all.begin(), all.end(), [&](const auto& r) { return r.id == id; });
  return it == all.end() ? nullptr : &*it;
}

std::vector<Diagnostic> check(const config::JobSpec& spec, const estimate::Estimate& estimate)
{
  return check(spec, estimate, Severity::advice);
}

std::vector<Diagnostic> check(const config::JobSpec& spec, const estimate::Estimate& estimate, Severity least)
{
  const Context ctx = make_context(spec, estimate);
  std::vector<Diagnostic> out;
  for (const auto topic : k_topics) {
    for (const auto& rule : topic()) {
      if (severity_rank(rule.severity) > severity_rank(least)) {
        continue;
      }
      auto finding = rule.check(ctx);
      if (!finding) {
        continue;
      }
      out.push_back(Diagnostic{rule.severity, rule.id, std::move(finding->message),
                               std::move(finding->fix), spec.location_of(finding->key)});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return severity_rank(a.severity) < severity_rank(b.severity);
  });
  return out;
}

} // namespace lg::rules
