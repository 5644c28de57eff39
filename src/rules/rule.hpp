// Internal to src/rules: how a rule is written. A rule is a row of a topic
// table (id, severity, summary, source, check function); the check function
// looks at the job and returns at most one Finding. catalogue.cpp strings the
// topic tables together, runs them and turns findings into Diagnostics.
#pragma once

#include "config/job_spec.hpp"
#include "estimate/estimate.hpp"
#include "util/diagnostic.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lg::rules {

// The job plus the derived quantities most rules need, computed once.
struct Context
{
  const config::JobSpec& spec;
  const estimate::Estimate& estimate;
  int world = 0;         // nodes * gpus_per_node
  int dp = 0;            // world / (tp * pp * cp); 0 when not integral
  int etp = 0;           // etp, or tp when unset
  int microbatches = 0;  // gbs / (mbs * dp); 0 when not integral
  // True when every parallel size is >= 1, so rules may divide by them.
  bool sizes_ok = false;
  // Selective recompute modules as Megatron sees them (["core_attn"] when
  // selective and empty); empty when granularity is not selective.
  std::vector<std::string> recompute_modules;
};

Context make_context(const config::JobSpec& spec, const estimate::Estimate& estimate);

// What a rule found. The catalogue adds id and severity; `key` ("section.key")
// becomes the location through JobSpec::location_of.
struct Finding
{
  std::string message;
  std::string fix;
  std::string key;
};

using Check = std::optional<Finding> (*)(const Context&);

struct Rule
{
  const char* id;
  Severity severity;
  const char* summary;
  const char* source;
  Check check;
};

// The topic tables, in catalogue order.
std::span<const Rule> model_rules();
std::span<const Rule> parallelism_rules();
std::span<const Rule> pipeline_rules();
std::span<const Rule> offload_rules();
std::span<const Rule> recompute_rules();
std::span<const Rule> sequence_parallel_rules();
std::span<const Rule> context_parallel_rules();
std::span<const Rule> moe_rules();
std::span<const Rule> ep_overlap_rules();
std::span<const Rule> precision_rules();
std::span<const Rule> cuda_graphs_rules();
std::span<const Rule> optimizer_rules();
std::span<const Rule> memory_rules();
std::span<const Rule> advice_rules();

// --- helpers shared by the topic files (support.cpp) ---

// "<what>; upstream: <text>" — `text` is the exact upstream string, with its
// exception type when known ("ValueError: …").
std::string with_upstream(std::string_view what, std::string_view text);

bool contains(const std::vector<std::string>& items, std::string_view item);

// A Python set/list repr as upstream f-strings print it: {'a', 'b'}.
std::string python_set(const std::vector<std::string>& items);

// True for Megatron Bridge and NeMo jobs (config goes through MCore dataclasses
// and Bridge's ConfigContainer.validate), false for the Megatron-LM CLI.
bool is_bridge(const config::JobSpec& spec);

// True when the model has routed experts (num_experts > 0).
bool is_moe(const config::ModelSpec& model);

// True when the model has experts and every decoder layer is an MoE layer.
bool all_layers_moe(const config::ModelSpec& model);

// Transformer layers per pipeline rank for even PP (num_layers / pp).
int layers_per_pp_rank(const Context& ctx);

} // namespace lg::rules
