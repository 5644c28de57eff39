// FP8 / FP4 recipes against the GPU generation, FP8 GEMM shapes and FP8
// parameter gather (Megatron-LM and Transformer Engine support checks).
#include "rules/rule.hpp"

#include "util/strings.hpp"

#include <fmt/core.h>

namespace lg::rules {

namespace {

using config::GpuGeneration;
using config::Precision;

const char* gpu_name(const Context& ctx)
{
  return ctx.spec.cluster.gpu_info.display_name.c_str();
}

std::optional<Finding> fp8_requires_hopper(const Context& ctx)
{
  const auto precision = ctx.spec.training.precision;
  const bool per_tensor = precision == Precision::fp8_delayed || precision == Precision::fp8_cs;
  if (ctx.spec.cluster.gpu_info.generation != GpuGeneration::ampere
      || (!per_tensor && precision != Precision::fp8_blockwise)) {
    return std::nullopt;
  }
  const char* upstream =
    per_tensor ? "RuntimeError: Device compute capability 8.9 or higher required for FP8 "
                 "execution."
               : "RuntimeError: FP8 block scaled GEMM requires compute capability 9.0 or higher "
                 "and CUDA >= 12.9.";
  return Finding{with_upstream(fmt::format("precision {} on {} (Ampere, SM 8.0)",
                                           config::to_string(precision), gpu_name(ctx)),
                               upstream),
                 "set training.precision = \"bf16\" on Ampere, or run on Hopper or newer",
                 "training.precision"};
}

std::optional<Finding> requires_blackwell(const Context& ctx)
{
  const auto precision = ctx.spec.training.precision;
  if (ctx.spec.cluster.gpu_info.generation == GpuGeneration::blackwell
      || (precision != Precision::mxfp8 && precision != Precision::nvfp4)) {
    return std::nullopt;
  }
  const char* upstream =
    precision == Precision::mxfp8
      ? "RuntimeError: Device compute capability 10.0 or higher required for MXFP8 execution."
      : "Device compute capability 10.0 or higher required for NVFP4 execution.";
  return Finding{with_upstream(fmt::format("precision {} on {} ({}): block-scaled MX/NV formats "
                                           "need Blackwell",
                                           config::to_string(precision), gpu_name(ctx),
                                           config::to_string(
                                             ctx.spec.cluster.gpu_info.generation)),
                               upstream),
                 "on Hopper use training.precision = \"fp8-cs\" or \"fp8-blockwise\"; on Ampere "
                 "use \"bf16\"",
                 "training.precision"};
}

// GEMM widths that Transformer Engine quantises, as "name=value" for the ones
// not divisible by 16.
std::vector<std::string> unaligned_widths(const Context& ctx)
{
  const auto& m = ctx.spec.model;
  const auto& p = ctx.spec.parallelism;
  // A fixed array, not a vector: tune checks every candidate.
  const std::pair<std::string_view, long long> widths[] = {
    {"hidden_size", m.hidden_size},
    {"ffn_hidden_size/tp", m.ffn_hidden_size / p.tp},
    {"heads*kv_channels/tp",
     static_cast<long long>(m.num_attention_heads) * config::kv_channels(m) / p.tp},
    {"moe_ffn_hidden_size/etp",
     is_moe(m) && m.moe->moe_ffn_hidden_size > 0 ? m.moe->moe_ffn_hidden_size / ctx.etp : 0},
  };
  std::vector<std::string> out;
  for (const auto& [name, value] : widths) {
    if (value > 0 && value % 16 != 0) {
      out.push_back(fmt::format("{}={}", name, value));
    }
  }
  return out;
}

std::optional<Finding> dims_divisible_by_16(const Context& ctx)
{
  const auto precision = ctx.spec.training.precision;
  if (!ctx.sizes_ok || (!config::is_fp8(precision) && !config::is_fp4(precision))) {
    return std::nullopt;
  }
  const auto bad = unaligned_widths(ctx);
  if (bad.empty()) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("{} GEMM widths not divisible by 16: {}",
                              config::to_string(precision), join(bad, ", ")),
                  "AssertionError: FP8 execution requires 2D input matrices with height "
                  "divisible by 8 and width divisible by 16, but got tensor with dims=[...]"),
    "use a tp that keeps every per-rank GEMM width a multiple of 16, or train in bf16",
    "training.precision"};
}

std::optional<Finding> param_gather_needs_fp8(const Context& ctx)
{
  const auto& t = ctx.spec.training;
  if (!t.fp8_param_gather || config::is_fp8(t.precision)) {
    return std::nullopt;
  }
  return Finding{with_upstream(fmt::format("fp8_param_gather with precision {}",
                                           config::to_string(t.precision)),
                               "fp8_param must be used together with fp8 mode."),
                 "set training.fp8_param_gather = false or use an fp8 precision",
                 "training.fp8_param_gather"};
}

std::optional<Finding> param_gather_needs_sharding(const Context& ctx)
{
  const auto& t = ctx.spec.training;
  if (!t.fp8_param_gather || t.distributed_optimizer || t.fsdp != config::Fsdp::none) {
    return std::nullopt;
  }
  return Finding{with_upstream("fp8_param_gather without the distributed optimizer or FSDP",
                               "--fp8-param-gather only supported with distributed optimizer, "
                               "torch fsdp2, megatron fsdp, or inference mode"),
                 "set training.distributed_optimizer = true (or use FSDP)",
                 "training.fp8_param_gather"};
}

std::optional<Finding> recipe_for_platform(const Context& ctx)
{
  const auto precision = ctx.spec.training.precision;
  const bool hopper_recipe = precision == Precision::fp8_delayed
                             || precision == Precision::fp8_cs
                             || precision == Precision::fp8_blockwise;
  if (ctx.spec.cluster.gpu_info.generation != GpuGeneration::blackwell || !hopper_recipe) {
    return std::nullopt;
  }
  return Finding{fmt::format("precision {} on Blackwell: the Hopper recipes are per-tensor / "
                             "current scaling or blockwise (128x128); Blackwell's native formats "
                             "are MXFP8 (1x32 blocks) and NVFP4 (16 elements)",
                             config::to_string(precision)),
                 "consider training.precision = \"mxfp8\" (keep the MoE router in fp32)",
                 "training.precision"};
}

constexpr Rule k_precision_rules[] = {
  {"precision.fp8_requires_hopper", Severity::error,
   "fp8 recipes need compute capability 8.9+ (blockwise: 9.0+); Ampere cannot run them",
   "[TE] transformer_engine/pytorch fp8 support checks (check_recipe_support)",
   fp8_requires_hopper},
  {"precision.mx_nv_requires_blackwell", Severity::error,
   "mxfp8 and nvfp4 need compute capability 10.0+ (Blackwell)",
   "[TE] transformer_engine/pytorch _compute_mxfp8_support / _compute_nvfp4_support",
   requires_blackwell},
  {"precision.dims_divisible_by_16", Severity::error,
   "fp8/fp4 GEMM widths per rank must be multiples of 16",
   "[TE] transformer_engine/pytorch/utils.py assert_dim_for_fp8_exec", dims_divisible_by_16},
  {"precision.fp8_param_gather_needs_fp8", Severity::error,
   "fp8_param_gather needs an fp8 precision",
   "[ML] megatron/core/transformer/transformer_config.py:1566-1567", param_gather_needs_fp8},
  {"precision.fp8_param_gather_needs_sharding", Severity::error,
   "fp8_param_gather needs the distributed optimizer or FSDP",
   "[ML] megatron/training/arguments.py:1095-1097", param_gather_needs_sharding},
  {"precision.recipe_for_platform", Severity::advice,
   "pick the FP8 recipe for the GPU generation (Blackwell: MXFP8/NVFP4)",
   "[SK] nemo-mbridge-perf-moe-optimization-workflow/SKILL.md:199-213", recipe_for_platform},
};

} // namespace

std::span<const Rule> precision_rules()
{
  return k_precision_rules;
}

} // namespace lg::rules
