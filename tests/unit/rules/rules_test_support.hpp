// Helpers for the rules tests: run the rules on a spec whose keys all have
// distinct fake locations, find one rule's finding, and map its location
// back to the key it points at.
#pragma once

#include "config/job_spec.hpp"
#include "estimate/estimate.hpp"
#include "rules/rules.hpp"
#include "support/builders.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace lg::testing {

// Every key a rule may point at; key i is placed on line i + 1 of job.toml.
inline const std::vector<std::string>& located_keys()
{
  static const std::vector<std::string> k_keys = {
    "model.num_layers", "model.hidden_size", "model.num_attention_heads", "model.seq_length",
    "model.kv_channels", "model.max_position_embeddings", "model.num_query_groups", "model.mtp_num_layers",
    "model.attention_dropout", "model.moe.num_experts", "model.moe.moe_ffn_hidden_size",
    "model.moe.token_dispatcher", "parallelism", "parallelism.tp", "parallelism.pp",
    "parallelism.vpp", "parallelism.cp", "parallelism.ep", "parallelism.etp",
    "parallelism.sequence_parallel", "parallelism.first_stage_layers",
    "parallelism.last_stage_layers", "training.micro_batch_size", "training.global_batch_size",
    "training.precision", "training.recompute", "training.distributed_optimizer",
    "training.optimizer", "training.fsdp", "training.cpu_offloading_layers",
    "training.cuda_graphs", "training.cuda_graph_modules", "training.nccl_ub",
    "training.tp_comm_overlap", "training.overlap_grad_reduce", "training.overlap_param_gather",
    "training.overlap_moe_expert_parallel_comm", "training.delay_wgrad_compute",
    "training.fp8_param_gather", "peft.sequence_parallel_input_regather", "cluster.gpu",
    "cluster.nodes"};
  return k_keys;
}

inline config::JobSpec located(config::JobSpec spec)
{
  spec.source_file = "job.toml";
  const auto& keys = located_keys();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    spec.locations[keys[i]] = SourceLocation{"job.toml", static_cast<int>(i) + 1, 1};
  }
  return spec;
}

// The key a diagnostic points at ("" when none or not one of located_keys).
inline std::string key_of(const Diagnostic& d)
{
  if (!d.where || d.where->line <= 0) {
    return "";
  }
  const auto& keys = located_keys();
  const auto index = static_cast<std::size_t>(d.where->line - 1);
  return index < keys.size() ? keys[index] : "";
}

inline estimate::Estimate fits_estimate()
{
  estimate::Estimate e;
  e.verdict = estimate::Verdict::fits;
  e.peak_bytes = 60.0e9;
  e.capacity_bytes = 85027979264.0;  // presets/gpus/h100-80gb.toml
  return e;
}

inline std::vector<Diagnostic> run_rules(const config::JobSpec& spec,
                                         const estimate::Estimate& e = fits_estimate())
{
  return rules::check(located(spec), e);
}

inline std::optional<Diagnostic> find_finding(const std::vector<Diagnostic>& all,
                                              const std::string& id)
{
  const auto it = std::find_if(all.begin(), all.end(), [&](const auto& d) { return d.rule == id; });
  if (it == all.end()) {
    return std::nullopt;
  }
  return *it;
}

// Run the rules and require a finding of `id` with `severity` at `key`.
inline Diagnostic expect_finding(const config::JobSpec& spec, const std::string& id,
                                 Severity severity, const std::string& key,
                                 const estimate::Estimate& e = fits_estimate())
{
  const auto all = run_rules(spec, e);
  const auto found = find_finding(all, id);
  REQUIRE_MESSAGE(found.has_value(), "rule " << id << " did not fire");
  CHECK(found->severity == severity);
  CHECK(key_of(*found) == key);
  CHECK_FALSE(found->message.empty());
  CHECK_FALSE(found->fix.empty());
  const auto* info = rules::find_rule(id);
  REQUIRE(info != nullptr);
  CHECK(info->severity == severity);
  return *found;
}

inline bool fires(const config::JobSpec& spec, const std::string& id,
                  const estimate::Estimate& e = fits_estimate())
{
  return find_finding(run_rules(spec, e), id).has_value();
}

inline bool contains_text(const std::string& haystack, const std::string& needle)
{
  return haystack.find(needle) != std::string::npos;
}

// A small MoE job: 48 layers, 128 experts, TP2 EP8 SP on 16 H100s.
inline config::JobSpec moe_spec()
{
  auto spec = minimal_job_spec();
  auto& m = spec.model;
  m.num_layers = 48;
  m.hidden_size = 2048;
  m.ffn_hidden_size = 6144;
  m.num_attention_heads = 32;
  m.num_query_groups = 4;
  m.kv_channels = 128;
  config::MoeSpec moe;
  moe.num_experts = 128;
  moe.moe_ffn_hidden_size = 768;
  moe.router_topk = 8;
  m.moe = moe;
  spec.parallelism.tp = 2;
  spec.parallelism.ep = 8;
  spec.parallelism.sequence_parallel = true;
  spec.training.global_batch_size = 64;
  spec.cluster.nodes = 2;
  return spec;
}

} // namespace lg::testing
