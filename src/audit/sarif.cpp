// to_sarif (sarif.hpp), with nlohmann::json.
#include "audit/sarif.hpp"

#include "rules/rules.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
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

namespace {

// A fingerprint that survives the finding moving to another line: the rule
// and the message with its digits removed (line numbers in messages), FNV-1a.
std::string fingerprint(const Diagnostic& d)
{
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&](char c) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  };
  for (char c : d.rule + "\n" + d.message) {
    if (c < '0' || c > '9') {
      mix(c);
    }
  }
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(h));
  return buffer;
}

// Relative paths are relative to the checkout (%SRCROOT%), which code
// scanning resolves; absolute ones become file:// URIs.
nlohmann::json artifact(const std::string& path)
{
  std::string uri = path;
  while (uri.starts_with("./")) {
    uri.erase(0, 2);
  }
  if (uri.starts_with("/")) {
    return {{"uri", "file://" + uri}};
  }
  return {{"uri", uri}, {"uriBaseId", "%SRCROOT%"}};
}

nlohmann::json fix_object(const AuditFinding& finding, const std::string& path)
{
  nlohmann::json replacements = nlohmann::json::array();
  for (const auto& e : finding.edits) {
    replacements.push_back({{"deletedRegion", {{"charOffset", e.begin}, {"charLength", e.end - e.begin}}},
                            {"insertedContent", {{"text", e.text}}}});
  }
  return {{"description", {{"text", finding.diagnostic.fix}}},
          {"artifactChanges", {{{"artifactLocation", artifact(path)}, {"replacements", replacements}}}}};
}

} // namespace

std::string to_sarif(const std::vector<AuditResult>& results, const std::string& version)
{
  std::map<std::string, const AuditRuleInfo*> known;
  for (const auto& r : audit_rules()) {
    known[r.id] = &r;
  }
  std::map<std::string, int> index;  // only the rules that fired, in order of first use
  nlohmann::json rule_list = nlohmann::json::array();
  nlohmann::json out_results = nlohmann::json::array();
  for (const auto& result : results) {
    for (const auto& finding : result.findings) {
      const Diagnostic& d = finding.diagnostic;
      if (index.count(d.rule) == 0) {
        index[d.rule] = static_cast<int>(rule_list.size());
        if (const auto it = known.find(d.rule); it != known.end()) {
          rule_list.push_back(rule_object(d.rule, it->second->severity, it->second->summary));
        } else {
          const rules::RuleInfo* info = rules::find_rule(d.rule);
          rule_list.push_back(rule_object(d.rule, d.severity, info != nullptr ? info->summary : d.rule));
        }
      }
      nlohmann::json region = {{"startLine", d.where ? std::max(1, d.where->line) : 1}};
      if (d.where && d.where->column > 0) {
        region["startColumn"] = d.where->column;
      }
      nlohmann::json entry = {
        {"ruleId", d.rule},
        {"ruleIndex", index[d.rule]},
        {"level", level(d.severity)},
        {"message", {{"text", d.message + (d.fix.empty() ? "" : "\nfix: " + d.fix)}}},
        {"locations", {{{"physicalLocation", {{"artifactLocation", artifact(result.path)}, {"region", region}}}}}},
        {"partialFingerprints", {{"launchguardFinding/v1", fingerprint(d)}}}};
      if (!finding.edits.empty()) {
        entry["fixes"] = nlohmann::json::array({fix_object(finding, result.path)});
      }
      out_results.push_back(std::move(entry));
    }
  }
  const nlohmann::json log = {
    {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
    {"version", "2.1.0"},
    {"runs",
     {{{"tool",
        {{"driver",
          {{"name", "launchguard"}, {"version", version}, {"informationUri", "https://github.com/launchguard/launchguard"},
           {"rules", rule_list}}}}},
       {"originalUriBaseIds", {{"%SRCROOT%", {{"description", {{"text", "the directory audit ran in"}}}}}}},
       {"results", out_results}}}}};
  return log.dump(2);
}

} // namespace lg::audit
