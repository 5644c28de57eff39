// Virtual pipeline (interleaved schedule) rules (each cites upstream; the Megatron
// Bridge memory-tuning guide's "VPP config and layer divisibility validation").
#include "rules/rule.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"

#include <fmt/core.h>

namespace lg::rules {

namespace {

// "2, 4, 5, 10": the VPP degrees > 1 that divide `layers`.
std::string vpp_choices(int layers)
{
  std::vector<std::string> out;
  for (int v = 2; v <= layers; ++v) {
    if (layers % v == 0) {
      out.push_back(std::to_string(v));
    }
  }
  return out.empty() ? "none; remove vpp" : join(out, ", ");
}

std::optional<Finding> vpp_requires_pp(const Context& ctx)
{
  const auto& p = ctx.spec.parallelism;
  if (!p.vpp || p.pp > 1) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("vpp = {} with pp = {}", *p.vpp, p.pp),
                  "pipeline-model-parallel size should be greater than 1 with interleaved "
                  "schedule"),
    "remove parallelism.vpp, or set pp > 1", "parallelism.vpp"};
}

// Uneven PP: MCore's TransformerConfig checks first, last and middle stages.
std::optional<Finding> vpp_uneven(const Context& ctx, int vpp)
{
  const auto& p = ctx.spec.parallelism;
  for (const auto& [stage, count] : {std::pair{"first", p.first_stage_layers},
                                     std::pair{"last", p.last_stage_layers}}) {
    if (count && *count > 0 && *count % vpp != 0) {
      return Finding{
        with_upstream(fmt::format("{}_stage_layers {} is not divisible by vpp {}", stage, *count,
                                  vpp),
                      fmt::format("ValueError: number of layers at {} stage: {}must be divisible "
                                  "by virtual pipelineparallel degree {}",
                                  stage, *count, vpp)),
        fmt::format("make {}_stage_layers a multiple of {}, or pick vpp from: {}", stage, vpp,
                    vpp_choices(*count)),
        fmt::format("parallelism.{}_stage_layers", stage)};
    }
  }
  const int layers = ctx.spec.model.num_layers - p.first_stage_layers.value_or(0)
                     - p.last_stage_layers.value_or(0);
  const int stages = p.pp - (p.first_stage_layers ? 1 : 0) - (p.last_stage_layers ? 1 : 0);
  if (stages <= 0 || layers < 0 || (layers / stages) % vpp == 0) {
    return std::nullopt;
  }
  const int per_rank = layers / stages;
  return Finding{
    with_upstream(fmt::format("{} layers on each middle pipeline rank are not divisible by vpp {}",
                              per_rank, vpp),
                  fmt::format("ValueError: number of layers on each middle pipeline rank:{} must "
                              "be divisible by virtualpipeline parallel degree {}",
                              per_rank, vpp)),
    fmt::format("set vpp to one of: {}", vpp_choices(per_rank)), "parallelism.vpp"};
}

// An explicit --pipeline-model-parallel-layout replaces the even split and
// its divisibility checks; Megatron validates the layout itself
// (pipeline_parallel_layer_layout.py __init__ and validate_layer_layout).
std::optional<Finding> layout_consistent(const Context& ctx)
{
  const auto& p = ctx.spec.parallelism;
  std::vector<config::LayoutStage> stages;
  try {
    stages = config::parse_pipeline_layout(p.pipeline_layout);
  } catch (const InputError&) {
    return std::nullopt;  // the loader reports malformed layouts
  }
  int decoder = 0;
  int mtp = 0;
  for (const auto& s : stages) {
    decoder += s.decoder_layers;
    mtp += s.mtp_layers;
  }
  const auto n = static_cast<int>(stages.size());
  if (n % std::max(1, p.pp) != 0) {
    return Finding{
      with_upstream(fmt::format("pipeline_layout has {} stages, not a multiple of pp {}", n, p.pp),
                    fmt::format("pipeline_model_parallel_layout must be divisible by "
                                "pipeline_model_parallel_size (len(layout)={}, "
                                "pipeline_model_parallel_size={})",
                                n, p.pp)),
      fmt::format("give the layout pp x vpp stages separated by '|' (pp = {})", p.pp),
      "parallelism.pipeline_layout"};
  }
  if (p.vpp && *p.vpp * p.pp != n) {
    return Finding{fmt::format("vpp = {} but pipeline_layout has {} stages = {} per pipeline rank",
                               *p.vpp, n, n / std::max(1, p.pp)),
                   fmt::format("remove parallelism.vpp (the layout sets it) or set it to {}",
                               n / std::max(1, p.pp)),
                   "parallelism.vpp"};
  }
  if (decoder != ctx.spec.model.num_layers || mtp != std::max(0, ctx.spec.model.mtp_num_layers)) {
    return Finding{
      with_upstream(fmt::format("pipeline_layout places {} transformer and {} MTP layers; the "
                                "model has {} and {}",
                                decoder, mtp, ctx.spec.model.num_layers,
                                std::max(0, ctx.spec.model.mtp_num_layers)),
                    fmt::format("Number of decoder layers {} in pipeline_model_parallel_layout "
                                "does not match num_layers {}",
                                decoder, ctx.spec.model.num_layers)),
      "write one 't' per transformer layer and one 'm' per MTP layer", "parallelism.pipeline_layout"};
  }
  return std::nullopt;
}

std::optional<Finding> vpp_layers_divisible(const Context& ctx)
{
  const auto& p = ctx.spec.parallelism;
  if (!p.pipeline_layout.empty()) {
    return ctx.sizes_ok ? layout_consistent(ctx) : std::nullopt;
  }
  if (!ctx.sizes_ok || !p.vpp || p.pp <= 1 || ctx.spec.model.num_layers <= 0) {
    return std::nullopt;
  }
  if (p.first_stage_layers || p.last_stage_layers) {
    return vpp_uneven(ctx, *p.vpp);
  }
  const int layers = ctx.spec.model.num_layers + (p.account_for_embedding_in_pipeline_split ? 1 : 0)
                     + (p.account_for_loss_in_pipeline_split ? 1 : 0);
  if (layers % p.pp != 0 || (layers / p.pp) % *p.vpp == 0) {
    return std::nullopt;  // not divisible by pp: parallelism.layers_divisible_by_pp
  }
  const int per_rank = layers / p.pp;
  // Even PP is checked when the model is built (whitespace of the upstream
  // line continuation collapsed).
  return Finding{
    with_upstream(fmt::format("{} layers per pipeline rank ({} layers / pp {}) are not divisible "
                              "by vpp {}",
                              per_rank, layers, p.pp, *p.vpp),
                  fmt::format("AssertionError: num_layers_per_pipeline_rank {} should be "
                              "divisible by vp_size {}",
                              per_rank, *p.vpp)),
    fmt::format("set vpp to one of: {}", vpp_choices(per_rank)), "parallelism.vpp"};
}

std::optional<Finding> vpp_microbatch_range(const Context& ctx)
{
  const auto& p = ctx.spec.parallelism;
  const int m = ctx.microbatches;
  if (!p.vpp || p.pp <= 1 || m <= 0 || m >= p.pp) {
    return std::nullopt;
  }
  const int step = ctx.spec.training.micro_batch_size * ctx.dp;
  return Finding{
    with_upstream(fmt::format("{} microbatches per step (gbs {} / (mbs {} x dp {})) is fewer than "
                              "pp {} with the interleaved schedule",
                              m, ctx.spec.training.global_batch_size,
                              ctx.spec.training.micro_batch_size, ctx.dp, p.pp),
                  fmt::format("The number of contiguous micro-batches in a virtual pipeline "
                              "stageshould range in [PP={} , M={}]",
                              p.pp, m)),
    fmt::format("set training.global_batch_size to a multiple of {} (pp x mbs x dp)", p.pp * step),
    "training.global_batch_size"};
}

std::optional<Finding> vpp_microbatch_remainder(const Context& ctx)
{
  const auto& p = ctx.spec.parallelism;
  const int m = ctx.microbatches;
  if (!p.vpp || p.pp <= 1 || m < p.pp || m % p.pp == 0) {
    return std::nullopt;
  }
  const int step = ctx.spec.training.micro_batch_size * ctx.dp;
  return Finding{
    with_upstream(fmt::format("{} microbatches per step are not a multiple of pp {}", m, p.pp),
                  fmt::format("The remainder of M (the total micro-batches) divided by N (number "
                              "of contiguous micro-batches in a virtual pipeline stage) should be "
                              "0, or larger than or equal to the pipeline-parallel size, but it "
                              "is {}. Otherwise, it introduces dependency bubbles in the pipeline "
                              "and reduces throughput.",
                              m % p.pp)),
    fmt::format("set training.global_batch_size to a multiple of {} (pp x mbs x dp)", p.pp * step),
    "training.global_batch_size"};
}

std::optional<Finding> pp_without_vpp(const Context& ctx)
{
  const auto& p = ctx.spec.parallelism;
  if (!ctx.sizes_ok || p.pp <= 1 || p.vpp || p.first_stage_layers || p.last_stage_layers
      || !p.pipeline_layout.empty()) {
    return std::nullopt;
  }
  const int per_rank = layers_per_pp_rank(ctx);
  return Finding{fmt::format("pp {} without interleaving: \"PP without interleaving has large "
                             "pipeline bubbles.\" (Megatron also turns overlap_p2p_comm off "
                             "without VPP)",
                             p.pp),
                 fmt::format("set parallelism.vpp to one of: {}", vpp_choices(per_rank)),
                 "parallelism.pp"};
}

constexpr Rule k_rules[] = {
  {"pipeline.vpp_requires_pp", Severity::error, "vpp needs pp > 1",
   "[ML] megatron/core/parallel_state.py:827-831", vpp_requires_pp},
  {"pipeline.vpp_layers_divisible", Severity::error,
   "layers per pipeline rank (first/last/middle stage with uneven PP) must be divisible by vpp",
   "[ML] megatron/core/transformer/transformer_config.py:2306-2317,2325-2336,2355-2368 "
   "([SK] nemo-mbridge-perf-memory-tuning/SKILL.md:255-271); "
   "megatron/core/transformer/transformer_block.py get_num_layers_to_build (even PP)",
   vpp_layers_divisible},
  {"pipeline.vpp_microbatch_range", Severity::error,
   "with vpp, microbatches per step (gbs / (mbs * dp)) must be >= pp",
   "[ML] megatron/core/pipeline_parallel/schedules.py:1160-1168", vpp_microbatch_range},
  {"pipeline.vpp_microbatch_remainder", Severity::error,
   "with vpp, microbatches per step must be a multiple of pp",
   "[ML] megatron/core/pipeline_parallel/schedules.py:1170-1180", vpp_microbatch_remainder},
  {"pipeline.pp_without_vpp", Severity::advice,
   "pp > 1 without vpp has large pipeline bubbles",
   "[SK] nemo-mbridge-perf-parallelism-strategies/SKILL.md:252-253; [ML] "
   "megatron/training/arguments.py:1010-1018",
   pp_without_vpp},
};

} // namespace

std::span<const Rule> pipeline_rules()
{
  return k_rules;
}

} // namespace lg::rules
