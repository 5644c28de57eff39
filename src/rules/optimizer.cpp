// Optimizer, distributed optimizer, FSDP and DP overlap flags
// (each rule cites upstream; the Megatron Bridge memory-tuning guide's
// "Parallelism resizing").
#include "rules/rule.hpp"

#include <fmt/core.h>

namespace lg::rules {

namespace {

using config::Fsdp;

bool sharded(const Context& ctx)
{
  return ctx.spec.training.distributed_optimizer || ctx.spec.training.fsdp != Fsdp::none;
}

std::optional<Finding> precision_aware_needs_adam(const Context& ctx)
{
  const auto& o = ctx.spec.training.optimizer;
  if (!o.precision_aware || o.name == "adam") {
    return std::nullopt;
  }
  return Finding{with_upstream(fmt::format("precision-aware optimizer with optimizer \"{}\"",
                                           o.name),
                               "--use-precision-aware-optimizer only supported with adam"),
                 "set training.optimizer.name = \"adam\" or precision_aware = false",
                 "training.optimizer"};
}

// Only the optimizer-state dtype: JobSpec's grad_dtype also stands for the
// gradient buffer (Bridge's grad_reduce_in_fp32 = False, legal without the
// precision-aware optimizer), so bf16 grads alone are not an error here.
std::optional<Finding> state_dtype_needs_precision_aware(const Context& ctx)
{
  const auto& o = ctx.spec.training.optimizer;
  if (o.precision_aware || o.state_dtype == "fp32") {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("optimizer state_dtype {} without the precision-aware optimizer",
                              o.state_dtype),
                  "AssertionError: exp_avg_dtype can only be fp32 when not using precision-aware "
                  "optimizer"),
    "set training.optimizer.precision_aware = true, or state_dtype = \"fp32\"",
    "training.optimizer"};
}

std::optional<Finding> overlap_param_gather_needs_sharding(const Context& ctx)
{
  const auto& t = ctx.spec.training;
  if (is_bridge(ctx.spec) || !t.overlap_param_gather || t.distributed_optimizer
      || t.fsdp == Fsdp::megatron) {
    return std::nullopt;
  }
  return Finding{with_upstream("overlap_param_gather without the distributed optimizer",
                               "--overlap-param-gather only supported with distributed "
                               "optimizer, megatron fsdp, or dist_muon"),
                 "set training.distributed_optimizer = true or overlap_param_gather = false",
                 "training.overlap_param_gather"};
}

std::optional<Finding> overlap_param_gather_needs_grad_reduce(const Context& ctx)
{
  const auto& t = ctx.spec.training;
  if (is_bridge(ctx.spec) || !t.overlap_param_gather || t.overlap_grad_reduce) {
    return std::nullopt;
  }
  return Finding{with_upstream("overlap_param_gather without overlap_grad_reduce",
                               "Must use --overlap-param-gather with --overlap-grad-reduce"),
                 "set training.overlap_grad_reduce = true", "training.overlap_grad_reduce"};
}

std::optional<Finding> overlap_param_gather_enables_distopt(const Context& ctx)
{
  const auto& t = ctx.spec.training;
  if (!is_bridge(ctx.spec) || !t.overlap_param_gather || sharded(ctx)) {
    return std::nullopt;
  }
  return Finding{"overlap_param_gather without the distributed optimizer: Bridge silently "
                 "turns use_distributed_optimizer on (ddp and optimizer) and warns",
                 "set training.distributed_optimizer = true to say what will run",
                 "training.distributed_optimizer"};
}

std::optional<Finding> megatron_fsdp_optimizer(const Context& ctx)
{
  const auto& name = ctx.spec.training.optimizer.name;
  if (ctx.spec.training.fsdp != Fsdp::megatron || name == "adam" || name == "sgd") {
    return std::nullopt;
  }
  return Finding{with_upstream(fmt::format("Megatron-FSDP with optimizer \"{}\"", name),
                               fmt::format("Megatron-FSDP does not support the {} optimizer yet.",
                                           name)),
                 "set training.optimizer.name = \"adam\" or \"sgd\"", "training.optimizer"};
}

std::optional<Finding> torch_fsdp2_with_pp(const Context& ctx)
{
  if (ctx.spec.training.fsdp != Fsdp::torch || ctx.spec.parallelism.pp <= 1) {
    return std::nullopt;
  }
  return Finding{with_upstream(fmt::format("torch FSDP2 with pp = {}", ctx.spec.parallelism.pp),
                               "--use-torch-fsdp2 is not supported with pipeline parallelism"),
                 "set pp = 1, or use fsdp = \"megatron\" / the distributed optimizer",
                 "training.fsdp"};
}

std::optional<Finding> torch_fsdp2_limits(const Context& ctx)
{
  const auto& t = ctx.spec.training;
  if (t.fsdp != Fsdp::torch) {
    return std::nullopt;
  }
  std::string problem;
  if (ctx.spec.parallelism.ep > 1) {
    problem = fmt::format("ep = {}", ctx.spec.parallelism.ep);
  } else if (!ctx.spec.model.untie_embeddings_and_output_weights) {
    problem = "tied embeddings";
  } else if (t.precision == config::Precision::fp16) {
    problem = "fp16";
  } else if (!is_bridge(ctx.spec) && t.distributed_optimizer) {
    problem = "the distributed optimizer";
  } else {
    return std::nullopt;
  }
  return Finding{fmt::format("torch FSDP2 does not support {} (Megatron-LM validate_args "
                             "refuses it)",
                             problem),
                 "use fsdp = \"megatron\", or remove the unsupported setting", "training.fsdp"};
}

std::optional<Finding> nccl_ub_needs_sharding(const Context& ctx)
{
  if (!ctx.spec.training.nccl_ub || sharded(ctx)) {
    return std::nullopt;
  }
  return Finding{"nccl_ub registers NCCL user buffers for the DP/FSDP parameter and gradient "
                 "buffers; without the distributed optimizer or FSDP it does not apply",
                 "set training.distributed_optimizer = true (or fsdp = \"megatron\"), or "
                 "nccl_ub = false",
                 "training.nccl_ub"};
}

std::optional<Finding> distributed_optimizer_off(const Context& ctx)
{
  if (sharded(ctx) || ctx.dp <= 1) {
    return std::nullopt;
  }
  return Finding{fmt::format("optimizer state is replicated on all {} data-parallel ranks; the "
                             "distributed optimizer shards it across DP for ~1-2% throughput "
                             "(bf16 params + fp32 grads: 18 -> 6 + 12/{} bytes per parameter)",
                             ctx.dp, ctx.dp),
                 "set training.distributed_optimizer = true (Bridge: use_distributed_optimizer "
                 "= True in both the ddp and the optimizer config)",
                 "training.distributed_optimizer"};
}

std::optional<Finding> fsdp_tp_on_hopper(const Context& ctx)
{
  if (ctx.spec.training.fsdp == Fsdp::none || ctx.spec.parallelism.tp <= 2
      || ctx.spec.cluster.gpu_info.generation != config::GpuGeneration::hopper) {
    return std::nullopt;
  }
  return Finding{fmt::format("FSDP with tp = {} on Hopper: \"Prefer FSDP with TP=1 or TP=2 on "
                             "H100; FSDP shines on GB/B-series\"",
                             ctx.spec.parallelism.tp),
                 "use tp 1 or 2 with FSDP on H100", "parallelism.tp"};
}

std::optional<Finding> moe_overlap_grad_reduce_hopper(const Context& ctx)
{
  if (!is_moe(ctx.spec.model) || !ctx.spec.training.overlap_grad_reduce
      || ctx.spec.cluster.gpu_info.generation != config::GpuGeneration::hopper) {
    return std::nullopt;
  }
  return Finding{"MoE on Hopper with overlap_grad_reduce: \"May hurt throughput (False in many "
                 "H100 presets)\"",
                 "measure with training.overlap_grad_reduce = false",
                 "training.overlap_grad_reduce"};
}

constexpr Rule k_rules[] = {
  {"optimizer.precision_aware_needs_adam", Severity::error,
   "the precision-aware optimizer only supports adam",
   "[ML] megatron/core/optimizer/optimizer_config.py:433-436", precision_aware_needs_adam},
  {"optimizer.state_dtype_needs_precision_aware", Severity::error,
   "non-fp32 optimizer states (exp_avg / exp_avg_sq) need the precision-aware optimizer",
   "[ML] megatron/core/optimizer/optimizer_config.py:468-477",
   state_dtype_needs_precision_aware},
  {"optimizer.overlap_param_gather_needs_sharding", Severity::error,
   "Megatron-LM: overlap_param_gather needs the distributed optimizer or Megatron-FSDP",
   "[ML] megatron/training/arguments.py:1024-1029", overlap_param_gather_needs_sharding},
  {"optimizer.overlap_param_gather_needs_grad_reduce", Severity::error,
   "Megatron-LM: overlap_param_gather needs overlap_grad_reduce",
   "[ML] megatron/training/arguments.py:1024-1029", overlap_param_gather_needs_grad_reduce},
  {"optimizer.overlap_param_gather_enables_distributed_optimizer", Severity::warning,
   "Bridge: overlap_param_gather silently turns the distributed optimizer on",
   "[MB] src/megatron/bridge/training/config.py:2101-2137",
   overlap_param_gather_enables_distopt},
  {"optimizer.megatron_fsdp_optimizer", Severity::error,
   "Megatron-FSDP supports only adam and sgd",
   "[ML] megatron/training/arguments.py:1149-1151", megatron_fsdp_optimizer},
  {"optimizer.torch_fsdp2_with_pp", Severity::error, "torch FSDP2 does not support pp > 1",
   "[ML] megatron/training/arguments.py:1031-1049", torch_fsdp2_with_pp},
  {"optimizer.torch_fsdp2_limits", Severity::error,
   "torch FSDP2 does not support ep > 1, tied embeddings, fp16 or (MLM) the distributed "
   "optimizer",
   "[ML] megatron/training/arguments.py:1031-1049", torch_fsdp2_limits},
  {"optimizer.nccl_ub_needs_sharding", Severity::warning,
   "nccl_ub is for the distributed optimizer or FSDP buffers",
   "[ML] megatron/core/distributed/distributed_data_parallel_config.py (nccl_ub)",
   nccl_ub_needs_sharding},
  {"optimizer.distributed_optimizer_off", Severity::advice,
   "the distributed optimizer shards optimizer state across DP for ~1-2%",
   "[SK] nemo-mbridge-perf-memory-tuning/SKILL.md:90-100 (Parallelism resizing); [ML] docs/user-guide/features/"
   "dist_optimizer.md:15-19",
   distributed_optimizer_off},
  {"optimizer.fsdp_tp_on_hopper", Severity::advice, "prefer FSDP with tp 1 or 2 on H100",
   "[SK] nemo-mbridge-recipe-recommender/SKILL.md:269", fsdp_tp_on_hopper},
  {"optimizer.moe_overlap_grad_reduce_hopper", Severity::advice,
   "MoE on H100: overlap_grad_reduce may hurt throughput",
   "[SK] nemo-mbridge-recipe-recommender/SKILL.md:271", moe_overlap_grad_reduce_hopper},
};

} // namespace

std::span<const Rule> optimizer_rules()
{
  return k_rules;
}

} // namespace lg::rules
