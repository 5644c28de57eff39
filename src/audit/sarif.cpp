// to_sarif (sarif.hpp), with nlohmann::json.
#include "audit/sarif.hpp"

#include "rules/rules.hpp"

#include <nlohmann/json.hpp>

#include <map>

namespace lg::audit {

namespace {

const char* level(Severity severity)
{
  return severity == Severity::error ? "error" : severity == Severity::warning ? "warning" : "note";
}

nlohmann::json rule_object(const std::string& id, Severity severity, const std::string& summary)
{
  return {{"id", id},
          {"shortDescription", {{"text", summary}}},
          {"defaultConfiguration", {{"level", level(severity)}}},
          {"helpUri", "https://github.com/launchguard/launchguard/blob/main/docs/audit.md"}};
}

} // namespace

std::string to_sarif(const std::vector<AuditResult>& results, const std::string& version)
{
  std::map<std::string, nlohmann::json> rules;
  for (const auto& r : audit_rules()) {
    rules[r.id] = rule_object(r.id, r.severity, r.summary);
  }
  nlohmann::json out_results = nlohmann::json::array();
  for (const auto& result : results) {
    for (const auto& finding : result.findings) {
      const Diagnostic& d = finding.diagnostic;
      if (rules.count(d.rule) == 0) {
        const rules::RuleInfo* info = rules::find_rule(d.rule);
        rules[d.rule] = rule_object(d.rule, d.severity, info != nullptr ? info->summary : d.rule);
      }
      nlohmann::json region = {{"startLine", d.where ? std::max(1, d.where->line) : 1}};
      if (d.where && d.where->column > 0) {
        region["startColumn"] = d.where->column;
      }
      out_results.push_back(
        {{"ruleId", d.rule},
         {"level", level(d.severity)},
         {"message", {{"text", d.message + (d.fix.empty() ? "" : "\nfix: " + d.fix)}}},
         {"locations",
          {{{"physicalLocation", {{"artifactLocation", {{"uri", result.path}}}, {"region", region}}}}}}});
    }
  }
  nlohmann::json rule_list = nlohmann::json::array();
  for (auto& [id, rule] : rules) {
    rule_list.push_back(rule);
  }
  const nlohmann::json log = {
    {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
    {"version", "2.1.0"},
    {"runs",
     {{{"tool",
        {{"driver",
          {{"name", "launchguard"}, {"version", version}, {"informationUri", "https://github.com/launchguard/launchguard"},
           {"rules", rule_list}}}}},
       {"results", out_results}}}}};
  return log.dump(2);
}

} // namespace lg::audit
