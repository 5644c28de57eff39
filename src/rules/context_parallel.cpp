// Context parallelism rules (each cites its upstream source).
#include "rules/rule.hpp"

#include <fmt/core.h>

#include <numeric>

namespace lg::rules {

namespace {

std::optional<Finding> seq_divisible(const Context& ctx)
{
  const int cp = ctx.spec.parallelism.cp;
  const int seq = ctx.spec.model.seq_length;
  if (cp <= 1 || seq <= 0 || seq % (2 * cp) == 0) {
    return std::nullopt;
  }
  const char* upstream =
    is_bridge(ctx.spec)
      ? "Sequence length must be divisible by 2 * context parallel size if context parallel is "
        "used."
      : "seq-length should be a multiple of 2 * context-parallel-size if context-parallel-size "
        "> 1.";
  const int multiple = 2 * cp;
  return Finding{
    with_upstream(fmt::format("seq_length {} is not a multiple of 2 x cp = {}", seq, multiple),
                  upstream),
    fmt::format("set model.seq_length = {} (a multiple of {}) or change cp",
                (seq / multiple + 1) * multiple, multiple),
    "model.seq_length"};
}

std::optional<Finding> padding_multiple(const Context& ctx)
{
  const auto& p = ctx.spec.parallelism;
  const int seq = ctx.spec.model.seq_length;
  if (!ctx.sizes_ok || seq <= 0 || (p.cp > 1 && seq % (2 * p.cp) != 0)) {
    return std::nullopt;  // context_parallel.seq_divisible already says so
  }
  const int cp_multiple = p.cp > 1 ? 2 * p.cp : 1;
  const int sp_multiple = p.sequence_parallel && p.tp > 1 ? p.cp * p.tp : 1;
  const int multiple = std::lcm(cp_multiple, sp_multiple);
  if (seq % multiple == 0) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("seq_length {} is not a multiple of lcm(2 x cp, cp x tp with "
                              "sequence parallelism) = {}",
                              seq, multiple),
                  fmt::format("<dataset config>.seq_length must be divisible by the CP/SP collate "
                              "padding multiple ({}).",
                              multiple)),
    fmt::format("set model.seq_length = {} (a multiple of {})", (seq / multiple + 1) * multiple,
                multiple),
    "model.seq_length"};
}

std::optional<Finding> sizing(const Context& ctx)
{
  const int cp = ctx.spec.parallelism.cp;
  const int seq = ctx.spec.model.seq_length;
  const int suggested = seq >= 32768 ? 4 : 2;
  if (seq <= 8192 || cp >= suggested) {
    return std::nullopt;
  }
  return Finding{fmt::format("seq_length {} with cp = {}: activations grow linearly with "
                             "sequence length; the long-context guidance is CP ~ seq/4096, "
                             "CP=2 for 8K-32K and CP=4-8 for 32K+",
                             seq, cp),
                 fmt::format("consider parallelism.cp = {} (keep seq_length a multiple of {})",
                             suggested, 2 * suggested),
                 "parallelism.cp"};
}

constexpr Rule k_rules[] = {
  {"context_parallel.seq_divisible", Severity::error,
   "with cp > 1, seq_length must be a multiple of 2 * cp",
   "[ML] megatron/training/arguments.py:1335-1338; [MB] src/megatron/bridge/training/"
   "config.py:1574-1577",
   seq_divisible},
  {"context_parallel.padding_multiple", Severity::error,
   "seq_length must be a multiple of lcm(2*cp if cp > 1, cp*tp with sequence parallelism)",
   "[MB] src/megatron/bridge/training/config.py:1354-1372", padding_multiple},
  {"context_parallel.sizing", Severity::advice,
   "long sequences: CP ~ seq/4096 (CP=2 for 8K-32K, 4-8 for 32K+)",
   "[SK] nemo-mbridge-perf-moe-long-context/SKILL.md:56-75; [SK] "
   "nemo-mbridge-perf-parallelism-strategies/SKILL.md:85-92",
   sizing},
};

} // namespace

std::span<const Rule> context_parallel_rules()
{
  return k_rules;
}

} // namespace lg::rules
