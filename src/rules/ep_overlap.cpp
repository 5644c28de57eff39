// EP all-to-all communication overlap (overlap_moe_expert_parallel_comm) and
// delayed wgrad compute (each rule cites upstream).
#include "rules/rule.hpp"

#include <fmt/core.h>

namespace lg::rules {

namespace {

bool overlap(const Context& ctx)
{
  return ctx.spec.training.overlap_moe_expert_parallel_comm;
}

Finding finding(std::string what, std::string_view upstream, std::string fix, std::string key)
{
  return Finding{with_upstream(what, upstream), std::move(fix), std::move(key)};
}

std::optional<Finding> needs_vpp(const Context& ctx)
{
  const auto& p = ctx.spec.parallelism;
  if (!overlap(ctx) || p.pp <= 1 || p.vpp) {
    return std::nullopt;
  }
  return finding(fmt::format("EP overlap with pp = {} and no vpp", p.pp),
                 "If enabling EP A2A overlap, virtual_pipeline_model_parallel_size must be "
                 "specified when pipeline_model_parallel_size > 1",
                 "set parallelism.vpp (a divisor of the layers per pipeline rank), or turn "
                 "overlap_moe_expert_parallel_comm off",
                 "parallelism.vpp");
}

std::optional<Finding> needs_ep(const Context& ctx)
{
  if (!overlap(ctx) || ctx.spec.parallelism.ep > 1) {
    return std::nullopt;
  }
  return finding("overlap_moe_expert_parallel_comm with ep = 1",
                 "overlap_moe_expert_parallel_comm is only supported with expert model "
                 "parallelism",
                 "set parallelism.ep > 1 or turn overlap_moe_expert_parallel_comm off",
                 "training.overlap_moe_expert_parallel_comm");
}

std::optional<Finding> needs_experts(const Context& ctx)
{
  const auto& moe = ctx.spec.model.moe;
  if (!overlap(ctx) || !is_bridge(ctx.spec) || (moe && moe->num_experts > 1)) {
    return std::nullopt;
  }
  return finding(fmt::format("overlap_moe_expert_parallel_comm with {} experts",
                             moe ? moe->num_experts : 0),
                 "overlap_moe_expert_parallel_comm is only supported when num_moe_experts > 1, "
                 "...",
                 "turn training.overlap_moe_expert_parallel_comm off",
                 "training.overlap_moe_expert_parallel_comm");
}

std::optional<Finding> dispatcher(const Context& ctx)
{
  const auto& moe = ctx.spec.model.moe;
  if (!overlap(ctx) || !moe || moe->token_dispatcher == "alltoall"
      || moe->token_dispatcher == "flex") {
    return std::nullopt;
  }
  return finding(fmt::format("EP overlap with the {} token dispatcher", moe->token_dispatcher),
                 "overlap_moe_expert_parallel_comm is supported with alltoall/flex token "
                 "dispatcher",
                 "set model.moe.token_dispatcher = \"alltoall\" or \"flex\"",
                 "model.moe.token_dispatcher");
}

std::optional<Finding> recompute(const Context& ctx)
{
  if (!overlap(ctx)) {
    return std::nullopt;
  }
  if (ctx.spec.training.recompute.granularity == config::RecomputeGranularity::full) {
    return finding("EP overlap with full recompute",
                   "disable full recomputation when enabling overlap_moe_expert_parallel_comm",
                   "use selective recompute (without moe) or turn EP overlap off",
                   "training.recompute");
  }
  if (contains(ctx.recompute_modules, "moe")) {
    return finding("EP overlap with moe in the recompute modules",
                   "disable moe in recompute_modules when enabling "
                   "overlap_moe_expert_parallel_comm",
                   "recompute moe_act instead of moe, or turn EP overlap off",
                   "training.recompute");
  }
  return std::nullopt;
}

std::optional<Finding> mtp_layers(const Context& ctx)
{
  const int mtp = ctx.spec.model.mtp_num_layers;
  if (!overlap(ctx) || mtp <= 1) {
    return std::nullopt;
  }
  return finding(fmt::format("EP overlap with mtp_num_layers = {}", mtp),
                 "MTP supports at most one layer when enabling overlap_moe_expert_parallel_comm.",
                 "set model.mtp_num_layers <= 1 or turn EP overlap off", "model.mtp_num_layers");
}

std::optional<Finding> cuda_graph_modules(const Context& ctx)
{
  const auto& t = ctx.spec.training;
  if (!overlap(ctx) || t.cuda_graphs != config::CudaGraphs::transformer_engine
      || (!contains(t.cuda_graph_modules, "moe") && !contains(t.cuda_graph_modules, "mlp"))) {
    return std::nullopt;
  }
  return finding("EP overlap with TE CUDA graphs capturing moe or mlp",
                 "CUDA graph scope on moe and mlp is not supported with "
                 "overlap_moe_expert_parallel_comm",
                 "capture attn, moe_router and moe_preprocess instead of moe/mlp",
                 "training.cuda_graph_modules");
}

std::optional<Finding> delay_wgrad(const Context& ctx)
{
  if (!ctx.spec.training.delay_wgrad_compute || overlap(ctx)) {
    return std::nullopt;
  }
  return finding("delay_wgrad_compute without EP overlap",
                 "overlap_moe_expert_parallel_comm must be enabled when enabling "
                 "delay_wgrad_compute",
                 "set training.overlap_moe_expert_parallel_comm = true or delay_wgrad_compute = "
                 "false",
                 "training.delay_wgrad_compute");
}

constexpr Rule k_rules[] = {
  {"ep_overlap.needs_vpp", Severity::error, "EP overlap with pp > 1 needs vpp",
   "[ML] megatron/core/transformer/transformer_config.py:3007-3011; [MB] "
   "src/megatron/bridge/training/comm_overlap.py:494-498",
   needs_vpp},
  {"ep_overlap.needs_ep", Severity::error, "EP overlap needs ep > 1",
   "[ML] megatron/core/transformer/transformer_config.py:3013-3015", needs_ep},
  {"ep_overlap.needs_experts", Severity::error, "Bridge: EP overlap needs more than one expert",
   "[MB] src/megatron/bridge/training/comm_overlap.py:482-485", needs_experts},
  {"ep_overlap.dispatcher", Severity::error, "EP overlap needs the alltoall or flex dispatcher",
   "[ML] megatron/core/transformer/transformer_config.py:3016-3019", dispatcher},
  {"ep_overlap.recompute", Severity::error,
   "EP overlap does not work with full recompute or moe recompute",
   "[ML] megatron/core/transformer/transformer_config.py:3021-3032", recompute},
  {"ep_overlap.mtp_layers", Severity::error, "EP overlap supports at most one MTP layer",
   "[ML] megatron/core/transformer/transformer_config.py:3042-3046", mtp_layers},
  {"ep_overlap.cuda_graph_modules", Severity::error,
   "EP overlap does not work with TE CUDA graphs of moe or mlp",
   "[ML] megatron/core/transformer/transformer_config.py:3063-3071", cuda_graph_modules},
  {"ep_overlap.delay_wgrad_needs_overlap", Severity::error,
   "delay_wgrad_compute needs EP overlap",
   "[ML] megatron/core/transformer/transformer_config.py:3074-3077; [MB] "
   "src/megatron/bridge/training/comm_overlap.py:532-535",
   delay_wgrad},
};

} // namespace

std::span<const Rule> ep_overlap_rules()
{
  return k_rules;
}

} // namespace lg::rules
