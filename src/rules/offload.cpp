// Activation (layer) CPU offloading and optimizer CPU offloading
// (each rule cites upstream; the Megatron Bridge memory-tuning guide's "CPU offloading:
// blocked", NVIDIA/skills skills/nemo-mbridge-perf-memory-tuning/SKILL.md:201-211).
#include "rules/rule.hpp"

#include <fmt/core.h>

namespace lg::rules {

namespace {

bool activation_offload(const Context& ctx)
{
  return ctx.spec.training.cpu_offloading_layers != 0;
}

std::optional<Finding> layers_range(const Context& ctx)
{
  const int n = ctx.spec.training.cpu_offloading_layers;
  const int layers = ctx.spec.model.num_layers;
  if (!activation_offload(ctx) || (n > 0 && n < layers)) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("cpu_offloading_layers = {} with num_layers = {}", n, layers),
                  fmt::format("CPU offloading can be done only for layers less than {}", layers)),
    fmt::format("set training.cpu_offloading_layers between 1 and {} (0 disables offloading)",
                layers - 1),
    "training.cpu_offloading_layers"};
}

std::optional<Finding> with_pp(const Context& ctx)
{
  const int pp = ctx.spec.parallelism.pp;
  if (!activation_offload(ctx) || pp <= 1) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("cpu_offloading_layers = {} with pp = {} (CPU offloading is "
                              "blocked for any model using PP > 1)",
                              ctx.spec.training.cpu_offloading_layers, pp),
                  "ValueError: Currently there is no support for Pipeline parallelism with CPU "
                  "offloading"),
    "set pp = 1 or cpu_offloading_layers = 0 (optimizer.cpu_offload_fraction offloads optimizer "
    "state and works with pp > 1)",
    "parallelism.pp"};
}

std::optional<Finding> with_recompute(const Context& ctx)
{
  const auto granularity = ctx.spec.training.recompute.granularity;
  if (!activation_offload(ctx) || granularity == config::RecomputeGranularity::none) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("cpu_offloading_layers = {} with recompute granularity {}",
                              ctx.spec.training.cpu_offloading_layers,
                              config::to_string(granularity)),
                  "CPU offloading does not work when activation recomputation is enabled"),
    "set training.recompute granularity = \"none\" or cpu_offloading_layers = 0",
    "training.cpu_offloading_layers"};
}

std::optional<Finding> with_cuda_graphs(const Context& ctx)
{
  const auto graphs = ctx.spec.training.cuda_graphs;
  if (!activation_offload(ctx) || graphs == config::CudaGraphs::none
      || graphs == config::CudaGraphs::full_iteration) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("cpu_offloading_layers = {} with cuda_graphs = {}",
                              ctx.spec.training.cpu_offloading_layers, config::to_string(graphs)),
                  "CUDA graphs not supported with CPU offloading."),
    "set training.cuda_graphs = \"none\" (or \"full_iteration\") or cpu_offloading_layers = 0",
    "training.cuda_graphs"};
}

std::optional<Finding> optimizer_needs_precision_aware(const Context& ctx)
{
  const auto& o = ctx.spec.training.optimizer;
  if (o.cpu_offload_fraction <= 0.0 || o.precision_aware) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("optimizer cpu_offload_fraction = {} without the precision-aware "
                              "optimizer",
                              o.cpu_offload_fraction),
                  "The optimizer cpu offload must be used in conjunction with "
                  "`--use-precision-aware-optimizer`, as the hybrid device optimizer reuses the "
                  "code path of this flag."),
    "set training.optimizer.precision_aware = true", "training.optimizer"};
}

std::optional<Finding> optimizer_fp8_param_gather(const Context& ctx)
{
  const auto& t = ctx.spec.training;
  if (t.optimizer.cpu_offload_fraction <= 0.0 || !t.fp8_param_gather
      || t.precision == config::Precision::fp8_delayed) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("optimizer CPU offload with fp8_param_gather and precision {}",
                              config::to_string(t.precision)),
                  "When `--fp8-param-gather` is enabled, the optimizer cpu offload must be used "
                  "in conjunction with `--fp8-recipe delayed`."),
    "set training.precision = \"fp8-delayed\", or fp8_param_gather = false, or "
    "optimizer.cpu_offload_fraction = 0",
    "training.fp8_param_gather"};
}

std::optional<Finding> optimizer_needs_distributed(const Context& ctx)
{
  const auto& t = ctx.spec.training;
  if (t.optimizer.cpu_offload_fraction <= 0.0 || t.distributed_optimizer) {
    return std::nullopt;
  }
  return Finding{fmt::format("optimizer cpu_offload_fraction = {} without the distributed "
                             "optimizer; the CPU offloading skill: \"Requires "
                             "`use_distributed_optimizer = True`\"",
                             t.optimizer.cpu_offload_fraction),
                 "set training.distributed_optimizer = true", "training.distributed_optimizer"};
}

std::optional<Finding> optimizer_fraction_range(const Context& ctx)
{
  const double f = ctx.spec.training.optimizer.cpu_offload_fraction;
  if (f >= 0.0 && f <= 1.0) {
    return std::nullopt;
  }
  return Finding{fmt::format("optimizer cpu_offload_fraction = {} is outside [0, 1]", f),
                 "set training.optimizer.cpu_offload_fraction between 0.0 and 1.0 (each 0.25 "
                 "saved ~3.8 GB on Qwen3-30B-A3B)",
                 "training.optimizer"};
}

constexpr Rule k_rules[] = {
  {"offload.cpu_offloading_layers_range", Severity::error,
   "cpu_offloading_layers must be less than num_layers",
   "[ML] megatron/core/transformer/transformer_config.py:1884-1889", layers_range},
  {"offload.cpu_offloading_with_pp", Severity::error,
   "activation CPU offloading needs pp = 1",
   "[ML] megatron/core/transformer/transformer_config.py:1891-1894; "
   "[SK] nemo-mbridge-perf-memory-tuning/SKILL.md:201-211,246-254",
   with_pp},
  {"offload.cpu_offloading_with_recompute", Severity::error,
   "activation CPU offloading does not work with activation recompute",
   "[ML] megatron/core/transformer/transformer_config.py:1896-1899", with_recompute},
  {"offload.cpu_offloading_with_cuda_graphs", Severity::error,
   "activation CPU offloading does not work with local or TE CUDA graphs",
   "[ML] megatron/core/transformer/transformer_config.py:2798-2801; [MB] "
   "src/megatron/bridge/models/gpt_full_te_layer_autocast_spec.py:231",
   with_cuda_graphs},
  {"offload.optimizer_needs_precision_aware", Severity::error,
   "optimizer CPU offload needs the precision-aware optimizer",
   "[ML] megatron/training/arguments.py:1883-1888", optimizer_needs_precision_aware},
  {"offload.optimizer_fp8_param_gather", Severity::error,
   "optimizer CPU offload with fp8_param_gather needs the delayed FP8 recipe",
   "[ML] megatron/training/arguments.py:1889-1892", optimizer_fp8_param_gather},
  {"offload.optimizer_needs_distributed_optimizer", Severity::advice,
   "optimizer CPU offload is meant for the distributed optimizer",
   "[SK] nemo-mbridge-perf-cpu-offloading/SKILL.md:97-101", optimizer_needs_distributed},
  {"offload.optimizer_fraction_range", Severity::advice,
   "optimizer cpu_offload_fraction belongs in [0, 1]",
   "[SK] nemo-mbridge-perf-cpu-offloading/SKILL.md:101; [ML] "
   "megatron/core/optimizer/optimizer_config.py:350",
   optimizer_fraction_range},
};

} // namespace

std::span<const Rule> offload_rules()
{
  return k_rules;
}

} // namespace lg::rules
