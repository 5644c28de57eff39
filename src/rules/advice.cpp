// The measured trade-offs of the Megatron Bridge memory-tuning guide (NVIDIA/skills
// skills/nemo-mbridge-perf-memory-tuning/SKILL.md: "Quick Decision", "Measured
// Results", "A Note on VPP") and the other Bridge performance skills, as advice.
#include "rules/rule.hpp"

#include <fmt/core.h>

namespace lg::rules {

namespace {

// Judged near or over the capacity; an `unknown` verdict says nothing of
// how tight memory is, so the advice that presumes it stays silent.
bool memory_tight(const Context& ctx)
{
  return ctx.estimate.verdict == estimate::Verdict::borderline || ctx.estimate.verdict == estimate::Verdict::oom;
}

std::optional<Finding> avoid_tp_increase(const Context& ctx)
{
  if (!memory_tight(ctx)) {
    return std::nullopt;
  }
  return Finding{fmt::format("memory is tight at tp = {}; avoid increasing TP as a memory fix: "
                             "on Llama3 70B (32x H100) TP 4 -> 8 cut peak 58.8 -> 50.2 GB but "
                             "throughput fell 28.4% (709.93 -> 508.7 TFLOP/s/GPU)",
                             ctx.spec.parallelism.tp),
                 "try expandable_segments, recompute or more PP (keeping DP) first",
                 "parallelism.tp"};
}

std::optional<Finding> pp_at_cost_of_dp(const Context& ctx)
{
  const auto& p = ctx.spec.parallelism;
  if (p.pp <= 1 || ctx.dp != 1 || ctx.microbatches <= 1) {
    return std::nullopt;
  }
  return Finding{fmt::format("pp = {} leaves dp = 1, so each step runs {} gradient-accumulation "
                             "microbatches; on Llama3 70B PP 4 -> 8 (DP 2 -> 1) cost 5.9% "
                             "throughput (668.0 vs 709.93 TFLOP/s/GPU)",
                             p.pp, ctx.microbatches),
                 "if memory allows, lower pp to regain data parallelism, or add nodes",
                 "parallelism.pp"};
}

std::optional<Finding> mlp_recompute_cost(const Context& ctx)
{
  if (!contains(ctx.recompute_modules, "mlp")) {
    return std::nullopt;
  }
  return Finding{"mlp recompute saves ~3 GB but cost ~16% GPU utilization on Llama3 70B "
                 "(593.6 vs 709.93 TFLOP/s/GPU, 58.8 -> 55.6 GB)",
                 "keep mlp recompute only if the job does not fit without it",
                 "training.recompute"};
}

std::optional<Finding> vpp_not_memory_fix(const Context& ctx)
{
  if (!ctx.spec.parallelism.vpp || !memory_tight(ctx)) {
    return std::nullopt;
  }
  return Finding{fmt::format("vpp = {}: VPP is a throughput (bubble) setting, not a memory fix; "
                             "on Llama3 70B VPP 10 used more memory than VPP 5 (60.2 vs 58.8 GB) "
                             "and the OOM was fragmentation",
                             *ctx.spec.parallelism.vpp),
                 "tune vpp for the pipeline bubble; fix memory with expandable_segments first",
                 "parallelism.vpp"};
}

std::optional<Finding> optimizer_offload_cost(const Context& ctx)
{
  const double f = ctx.spec.training.optimizer.cpu_offload_fraction;
  if (f <= 0.0 || f > 1.0) {
    return std::nullopt;
  }
  return Finding{fmt::format("optimizer cpu_offload_fraction = {}: on Qwen3-30B-A3B each 25% "
                             "offloaded saved ~3.8 GB and iteration time grew 1.9x (25%) to "
                             "4.2x (100%)",
                             f),
                 "offload the smallest fraction that fits", "training.optimizer"};
}

constexpr Rule k_advice_rules[] = {
  {"advice.avoid_tp_increase", Severity::advice,
   "increasing TP to save memory cost -28% on Llama3 70B",
   "[SK] nemo-mbridge-perf-memory-tuning/SKILL.md:62-63 (Quick Decision 4),181-200", avoid_tp_increase},
  {"advice.pp_at_cost_of_dp", Severity::advice,
   "PP bought with DP costs ~6% (Llama3 70B, PP 4 -> 8, DP 2 -> 1)",
   "[SK] nemo-mbridge-perf-memory-tuning/SKILL.md:64-65 (Quick Decision 5),181-200", pp_at_cost_of_dp},
  {"advice.mlp_recompute_cost", Severity::advice,
   "mlp recompute saves ~3 GB for ~16% utilization on Llama3 70B",
   "[SK] nemo-mbridge-perf-memory-tuning/SKILL.md:66-67 (Quick Decision 6); [SK] nemo-mbridge-perf-activation-recompute/card.yaml", mlp_recompute_cost},
  {"advice.vpp_not_memory_fix", Severity::advice, "VPP is not a memory fix",
   "[SK] nemo-mbridge-perf-memory-tuning/SKILL.md:143-158 (A Note on VPP)", vpp_not_memory_fix},
  {"advice.optimizer_offload_cost", Severity::advice,
   "optimizer CPU offload: ~3.8 GB per 25% for 1.9x-4.2x iteration time",
   "[SK] nemo-mbridge-perf-cpu-offloading/card.yaml:122-178",
   optimizer_offload_cost},
};

} // namespace

std::span<const Rule> advice_rules()
{
  return k_advice_rules;
}

} // namespace lg::rules
