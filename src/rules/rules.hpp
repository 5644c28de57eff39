// The constraint rules behind `launchguard check`: every Megatron-LM /
// Megatron Bridge / Transformer Engine constraint a JobSpec can express, the
// memory verdict of the estimate, and the Megatron Bridge memory-tuning guide's measured
// trade-offs as advice. Pure: no I/O. Environment-variable findings belong to
// the env composer, not here.
#pragma once

#include "config/job_spec.hpp"
#include "estimate/estimate.hpp"
#include "util/diagnostic.hpp"

#include <string>
#include <vector>

namespace lg::rules {

// Run every rule on `spec` (and the memory verdict of `estimate`, which the
// caller computed; rules never call the estimator). Findings are ordered by
// severity (error, warning, advice), then by the rule's position in
// catalogue(). Each finding carries its rule id, a message with the job's
// numbers (and the exact upstream message where one exists), a concrete fix
// and the location of the key it points at.
std::vector<Diagnostic> check(const config::JobSpec& spec, const estimate::Estimate& estimate);
// The same, running only the rules whose severity is at least `least`
// (tune's search: errors prune, warnings are counted, advice is not read).
std::vector<Diagnostic> check(const config::JobSpec& spec, const estimate::Estimate& estimate, Severity least);

// One rule of the catalogue: for docs/rules.md and `--explain`.
struct RuleInfo
{
  std::string id;        // "pipeline.vpp_layers_divisible"; stable
  Severity severity;     // the severity its findings carry
  std::string summary;   // one line
  std::string source;    // upstream file:line, e.g. "[ML] transformer_config.py:1891-1894"
};

// Every rule, in check order (topic by topic). Ids are unique.
const std::vector<RuleInfo>& catalogue();

// Return the catalogue entry of `id`, or nullptr.
const RuleInfo* find_rule(const std::string& id);

} // namespace lg::rules
