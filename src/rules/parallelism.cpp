// Parallelism divisibility and world-size rules (each cites its upstream source).
#include "rules/rule.hpp"

#include <fmt/core.h>

#include <numeric>

namespace lg::rules {

namespace {

// Smallest node count >= nodes whose GPU count is a multiple of `multiple`.
int next_valid_nodes(int nodes, int gpus_per_node, int multiple)
{
  for (int n = nodes; n <= nodes + multiple; ++n) {
    if ((static_cast<long long>(n) * gpus_per_node) % multiple == 0) {
      return n;
    }
  }
  return multiple;
}

std::optional<Finding> sizes_positive(const Context& ctx)
{
  if (ctx.sizes_ok) {
    return std::nullopt;
  }
  const auto& p = ctx.spec.parallelism;
  return Finding{fmt::format("parallel sizes must be >= 1: tp {}, pp {}, cp {}, ep {}, etp {}, "
                             "vpp {}, nodes {}, gpus_per_node {}",
                             p.tp, p.pp, p.cp, p.ep, ctx.etp, p.vpp.value_or(0),
                             ctx.spec.cluster.nodes, ctx.spec.cluster.gpus_per_node),
                 "set every parallel size to a positive integer (1 disables that dimension; "
                 "remove vpp to disable interleaving)",
                 "parallelism"};
}

std::optional<Finding> world_size(const Context& ctx)
{
  const auto& p = ctx.spec.parallelism;
  if (!ctx.sizes_ok) {
    return std::nullopt;
  }
  const int model = p.tp * p.pp * p.cp;
  if (ctx.world % model == 0) {
    return std::nullopt;
  }
  const auto& c = ctx.spec.cluster;
  return Finding{
    with_upstream(fmt::format("{} GPUs ({} nodes x {}) are not divisible by tp*pp*cp = {}*{}*{} "
                              "= {}",
                              ctx.world, c.nodes, c.gpus_per_node, p.tp, p.pp, p.cp, model),
                  fmt::format("world size ({}) is not divisible by total_model_size "
                              "(total_model_size={})",
                              ctx.world, model)),
    fmt::format("set cluster.nodes = {} (a multiple of {} GPUs), or change tp/pp/cp so that "
                "tp*pp*cp divides {}",
                next_valid_nodes(c.nodes, c.gpus_per_node, model), model, ctx.world),
    "cluster.nodes"};
}

std::optional<Finding> expert_world_size(const Context& ctx)
{
  const auto& p = ctx.spec.parallelism;
  if (!ctx.sizes_ok) {
    return std::nullopt;
  }
  const int expert = ctx.etp * p.ep * p.pp;
  if (ctx.world % expert == 0) {
    return std::nullopt;
  }
  const int minimum = p.pp * std::lcm(p.tp * p.cp, p.ep * ctx.etp);
  const auto& c = ctx.spec.cluster;
  return Finding{
    with_upstream(fmt::format("{} GPUs are not divisible by etp*ep*pp = {}*{}*{} = {} (etp "
                              "defaults to tp)",
                              ctx.world, ctx.etp, p.ep, p.pp, expert),
                  fmt::format("world_size ({}) is not divisible by "
                              "expert_tensor_model_pipeline_parallel size ({})",
                              ctx.world, expert)),
    fmt::format("use a multiple of pp*lcm(tp*cp, ep*etp) = {} GPUs (cluster.nodes = {}), or "
                "change ep/etp",
                minimum, next_valid_nodes(c.nodes, c.gpus_per_node, minimum)),
    "parallelism.ep"};
}

std::optional<Finding> heads_divisible_by_tp(const Context& ctx)
{
  const int heads = ctx.spec.model.num_attention_heads;
  const int tp = ctx.spec.parallelism.tp;
  if (!ctx.sizes_ok || heads <= 0 || heads % tp == 0) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("tp {} does not divide num_attention_heads {}", tp, heads),
                  fmt::format("num_attention_heads ({}) must be a multiple of "
                              "tensor_model_parallel_size ({}).",
                              heads, tp)),
    fmt::format("pick a tp that divides {}", heads), "parallelism.tp"};
}

std::optional<Finding> query_groups_vs_tp(const Context& ctx)
{
  const int groups = config::num_query_groups(ctx.spec.model);
  const int tp = ctx.spec.parallelism.tp;
  if (!ctx.sizes_ok || groups <= 0 || groups % tp == 0 || tp % groups == 0) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("num_query_groups {} and tp {}: neither divides the other",
                              groups, tp),
                  fmt::format("num_query_groups ({}) must be a multiple or divisor of "
                              "tensor_model_parallel_size ({}).",
                              groups, tp)),
    fmt::format("pick a tp that divides {} or is a multiple of it", groups), "parallelism.tp"};
}

std::optional<Finding> layers_divisible_by_pp(const Context& ctx)
{
  const auto& p = ctx.spec.parallelism;
  // The embedding / loss count as layers when accounted in the split
  // (transformer_block.py get_num_layers_to_build); a layout replaces it.
  const int layers = ctx.spec.model.num_layers + (p.account_for_embedding_in_pipeline_split ? 1 : 0)
                     + (p.account_for_loss_in_pipeline_split ? 1 : 0);
  if (!ctx.sizes_ok || p.first_stage_layers || p.last_stage_layers || !p.pipeline_layout.empty()
      || ctx.spec.model.num_layers <= 0 || layers % p.pp == 0) {
    return std::nullopt;
  }
  int lower = p.pp;
  while (lower > 1 && layers % lower != 0) {
    --lower;
  }
  return Finding{
    with_upstream(fmt::format("num_layers {} is not divisible by pp {}", layers, p.pp),
                  "Number of layers should be divisible by the pipeline-model-parallel size"),
    fmt::format("set pp = {} (divides {}), or give uneven stages with "
                "parallelism.first_stage_layers / last_stage_layers",
                lower, layers),
    "parallelism.pp"};
}

std::optional<Finding> uneven_pp_positive(const Context& ctx)
{
  const auto& p = ctx.spec.parallelism;
  if (p.first_stage_layers && *p.first_stage_layers <= 0) {
    return Finding{with_upstream(fmt::format("first_stage_layers = {}", *p.first_stage_layers),
                                 "ValueError: num_layers_in_first_pipeline_stage must be "
                                 "larger than 0"),
                   "set parallelism.first_stage_layers >= 1 or remove it",
                   "parallelism.first_stage_layers"};
  }
  if (p.last_stage_layers && *p.last_stage_layers <= 0) {
    return Finding{with_upstream(fmt::format("last_stage_layers = {}", *p.last_stage_layers),
                                 "ValueError: num_layers_in_last_pipeline_stage must be "
                                 "larger than 0"),
                   "set parallelism.last_stage_layers >= 1 or remove it",
                   "parallelism.last_stage_layers"};
  }
  return std::nullopt;
}

std::optional<Finding> uneven_pp_middle(const Context& ctx)
{
  const auto& p = ctx.spec.parallelism;
  if (!ctx.sizes_ok || (!p.first_stage_layers && !p.last_stage_layers)
      || p.first_stage_layers.value_or(1) <= 0 || p.last_stage_layers.value_or(1) <= 0) {
    return std::nullopt;
  }
  const int layers = ctx.spec.model.num_layers - p.first_stage_layers.value_or(0)
                     - p.last_stage_layers.value_or(0);
  const int stages = p.pp - (p.first_stage_layers ? 1 : 0) - (p.last_stage_layers ? 1 : 0);
  const std::string fix =
    fmt::format("choose first/last stage layers so that the remaining {} layers split evenly "
                "over the {} middle stages",
                layers, stages);
  if (layers < 0 || stages < 0 || (layers == 0) != (stages == 0)) {
    return Finding{with_upstream(fmt::format("uneven PP leaves {} middle layers for {} middle "
                                             "stages",
                                             layers, stages),
                                 fmt::format("Mismatch: {} middle layers remaining but {} middle "
                                             "PP stages available.",
                                             layers, stages)),
                   fix, "parallelism.first_stage_layers"};
  }
  if (stages == 0 || layers % stages == 0) {
    return std::nullopt;
  }
  return Finding{
    with_upstream(fmt::format("{} middle layers do not split over {} middle stages", layers,
                              stages),
                  fmt::format("number of layers at middle stage: {} must be divisible by the "
                              "middle pipeline model parallel size {}",
                              layers, stages)),
    fix, "parallelism.first_stage_layers"};
}

std::optional<Finding> batch_positive(const Context& ctx)
{
  const auto& t = ctx.spec.training;
  if (t.micro_batch_size > 0 && t.global_batch_size > 0) {
    return std::nullopt;
  }
  return Finding{fmt::format("micro_batch_size {} and global_batch_size {} must both be >= 1 "
                             "(upstream: bare asserts in validate_args)",
                             t.micro_batch_size, t.global_batch_size),
                 "set training.micro_batch_size and training.global_batch_size to positive values",
                 t.micro_batch_size > 0 ? "training.global_batch_size"
                                        : "training.micro_batch_size"};
}

std::optional<Finding> gbs_divisible(const Context& ctx)
{
  const auto& t = ctx.spec.training;
  if (ctx.dp <= 0 || t.micro_batch_size <= 0 || t.global_batch_size <= 0) {
    return std::nullopt;
  }
  const int step = t.micro_batch_size * ctx.dp;
  if (t.global_batch_size % step == 0) {
    return std::nullopt;
  }
  const int up = (t.global_batch_size / step + 1) * step;
  return Finding{
    with_upstream(fmt::format("global_batch_size {} is not a multiple of micro_batch_size {} x "
                              "dp {} = {}",
                              t.global_batch_size, t.micro_batch_size, ctx.dp, step),
                  fmt::format("global batch size ({}) is not divisible by micro batch size ({}) "
                              "times data parallel size ({})",
                              t.global_batch_size, t.micro_batch_size, ctx.dp)),
    fmt::format("set training.global_batch_size = {} (a multiple of {})", up, step),
    "training.global_batch_size"};
}

std::optional<Finding> tp_within_nvlink(const Context& ctx)
{
  const int tp = ctx.spec.parallelism.tp;
  const int domain = ctx.spec.cluster.gpu_info.nvlink_domain;
  if (domain <= 0 || tp <= domain) {
    return std::nullopt;
  }
  return Finding{fmt::format("tp {} spans more than one NVLink domain ({} GPUs on {}): \"TP "
                             "across nodes is almost always a performance loss.\"",
                             tp, domain, ctx.spec.cluster.gpu_info.display_name),
                 fmt::format("keep tp <= {} and use pp, cp or dp across nodes", domain),
                 "parallelism.tp"};
}

constexpr Rule k_rules[] = {
  {"parallelism.sizes_positive", Severity::error,
   "tp, pp, cp, ep, etp, vpp, nodes and gpus_per_node must be >= 1", "launchguard", sizes_positive},
  {"parallelism.world_size", Severity::error, "world size must be divisible by tp*pp*cp",
   "[ML] megatron/training/arguments.py:424-434; [ML] megatron/core/parallel_state.py:815-823; "
   "[MB] src/megatron/bridge/training/config.py:1013-1027",
   world_size},
  {"parallelism.expert_world_size", Severity::error,
   "world size must be divisible by etp*ep*pp (etp defaults to tp)",
   "[ML] megatron/core/parallel_state.py:870-884; [ML] megatron/training/arguments.py:587-588",
   expert_world_size},
  {"parallelism.heads_divisible_by_tp", Severity::error,
   "num_attention_heads must be a multiple of tp",
   "[ML] megatron/core/transformer/transformer_config.py:1446-1450", heads_divisible_by_tp},
  {"parallelism.query_groups_vs_tp", Severity::error,
   "num_query_groups must be a multiple or a divisor of tp",
   "[ML] megatron/core/transformer/transformer_config.py:1461-1468", query_groups_vs_tp},
  {"parallelism.layers_divisible_by_pp", Severity::error,
   "num_layers must be divisible by pp unless uneven PP stages are given",
   "[ML] megatron/training/arguments.py:985-998", layers_divisible_by_pp},
  {"parallelism.uneven_pp_positive", Severity::error,
   "first_stage_layers / last_stage_layers must be > 0",
   "[ML] megatron/core/transformer/transformer_config.py:2302-2323", uneven_pp_positive},
  {"parallelism.uneven_pp_middle", Severity::error,
   "with uneven PP the remaining layers must split evenly over the middle stages",
   "[ML] megatron/core/transformer/transformer_config.py:2340-2353", uneven_pp_middle},
  {"parallelism.batch_positive", Severity::error,
   "micro_batch_size and global_batch_size must be >= 1",
   "[ML] megatron/training/arguments.py:693-705", batch_positive},
  {"parallelism.gbs_divisible", Severity::error,
   "global_batch_size must be divisible by micro_batch_size * dp",
   "[ML] megatron/core/num_microbatches_calculator.py:367-391", gbs_divisible},
  {"parallelism.tp_within_nvlink", Severity::advice,
   "keep tp within one NVLink domain",
   "[SK] nemo-mbridge-perf-parallelism-strategies/SKILL.md:81-83,249-250", tp_within_nvlink},
};

} // namespace

std::span<const Rule> parallelism_rules()
{
  return k_rules;
}

} // namespace lg::rules
