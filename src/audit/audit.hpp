// `launchguard audit`: existing sbatch scripts, line by line. The same
// knowledge as `check` and `env` (rules::check, env::compose) placed on the
// script's lines, plus launch hygiene rules (audit.*), each finding with a
// fix and, where the fix is mechanical, the edits that apply it. Pure: the
// caller reads files and provides the one file-system question asked.
#pragma once

#include "config/job_spec.hpp"
#include "util/diagnostic.hpp"

#include <functional>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace lg::audit {

// Replace the script bytes [begin, end) with `text` (begin == end inserts).
struct Edit
{
  int begin = 0;
  int end = 0;
  std::string text;
};

struct AuditFinding
{
  Diagnostic diagnostic;     // where: {path, line, column}
  std::vector<Edit> edits;   // empty when the fix needs a person
};

// What running shellcheck gave: its json1 output, or why there is none.
struct ShellcheckRun
{
  std::optional<std::string> json1;
  std::string failure;  // "shellcheck is not on PATH", …
};

struct AuditOptions
{
  config::GpuSpec gpu;         // the GPU the script runs on (generation matters)
  bool gpu_assumed = false;    // neither --gpu nor the script says it: findings that hang on the generation are dropped
  // The script names a GPU no preset fits (GH200: 96 or 144 GB by model; an
  // AMD GPU; "a100" with no memory size): memory is not judged, and this says why.
  std::string gpu_unmatched;
  // "amd" / "ascend": the script names an AMD GPU or an Ascend NPU
  // (gpu_hint.cpp). `gpu` keeps the default
  // preset for the rules that need no generation, so texts name the AMD GPU,
  // never that preset's NVIDIA name or generation.
  std::string gpu_vendor;
  // The GPU's name when the preset in `gpu` only gives its generation
  // ("gh200"); printed in its place.
  std::string gpu_name;
  bool template_mode = false;  // a mustache template: {{…}} are unknown, not placeholders
  // How deep in `sbatch <<EOF` bodies this audit is (a body is audited as
  // the job script it is, once: no deeper).
  int submitted_depth = 0;
  // Does the directory exist? Asked for #SBATCH --output/--error; null skips
  // the rule.
  std::function<bool(const std::string& directory)> directory_exists;
  // Does bash parse the script? Returns (line, bash's message) for a syntax
  // error, nullopt when it parses; null skips the check (`bash -n` is run by
  // the caller: only util/process spawns processes).
  std::function<std::optional<std::pair<int, std::string>>(const std::string& text)> parse_error;
  // audit --shellcheck: shellcheck's `-f json1` output for the script text,
  // or why it did not run; null skips it (run by the caller, like bash -n).
  std::function<ShellcheckRun(const std::string& text)> shellcheck;
};

struct AuditResult
{
  std::string path;
  std::vector<AuditFinding> findings;  // by line, then severity
  std::vector<std::string> unknown;    // JobSpec keys that could not be known statically
  std::string gpu;                     // the GPU preset the findings assume
  std::string gpu_source;              // "--gpu", what the script says, or "assumed: …"
};

// Audit the script `text` (named `path` in findings).
AuditResult audit_text(const std::string& text, const std::string& path, const AuditOptions& options);

// The GPU a script names (a preset name) and the text that says so.
struct GpuHint
{
  std::string preset;  // "gb200", "h100-80gb", …
  std::string evidence;
  // Non-empty: no preset's memory fits, and why ("an AMD GPU, …"); memory is
  // not judged. `preset` is then one of the family (its generation holds:
  // "a100-40gb" for an A100 of unstated size) or a name with no preset ("amd").
  std::string no_preset;
  // The GPU's own name where `preset` only lends it its generation ("gh200":
  // a Hopper GPU, the h100-80gb preset's); empty: `preset` is the GPU.
  std::string name = {};
};
// `presets`: the GPU preset names there are ("a100-40gb", …); the families
// and memory sizes the script's words are matched against.
std::optional<GpuHint> gpu_from_script(const std::string& text, const std::vector<std::string>& presets);

// One audit.* rule, for SARIF and docs/audit.md.
struct AuditRuleInfo
{
  const char* id;
  Severity severity;  // the most severe level its findings carry
  const char* summary;
};
const std::vector<AuditRuleInfo>& audit_rules();

} // namespace lg::audit
