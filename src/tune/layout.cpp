#include "tune/layout.hpp"

#include <fmt/core.h>

namespace lg::tune {
namespace {

bool same(const RecomputeChoice& a, const config::RecomputeSpec& b)
{
  if (a.granularity != b.granularity) {
    return false;
  }
  if (a.granularity == config::RecomputeGranularity::selective) {
    config::RecomputeSpec spec;
    spec.granularity = a.granularity;
    spec.modules = a.modules;
    return config::recompute_modules(spec) == config::recompute_modules(b);
  }
  if (a.granularity == config::RecomputeGranularity::full) {
    return a.method == b.method && a.num_layers == b.num_layers;
  }
  return true;
}

} // namespace

Layout layout_of(const config::JobSpec& spec, std::vector<RecomputeChoice>& choices)
{
  const auto& p = spec.parallelism;
  const auto& t = spec.training;
  Layout l;
  l.tp = p.tp;
  l.pp = p.pp;
  l.vpp = p.vpp.value_or(0);
  l.cp = p.cp;
  l.ep = p.ep;
  l.etp = p.etp.value_or(p.tp);
  l.first_stage_layers = p.first_stage_layers.value_or(-1);
  l.last_stage_layers = p.last_stage_layers.value_or(-1);
  l.account_embedding = p.account_for_embedding_in_pipeline_split;
  l.account_loss = p.account_for_loss_in_pipeline_split;
  l.micro_batch_size = t.micro_batch_size;
  l.sequence_parallel = p.sequence_parallel;
  l.distributed_optimizer = t.distributed_optimizer;
  l.fsdp = t.fsdp == config::Fsdp::megatron;
  l.cpu_offloading_layers = t.cpu_offloading_layers;
  l.recompute = -1;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (same(choices[i], t.recompute)) {
      l.recompute = static_cast<int>(i);
    }
  }
  if (l.recompute < 0) {
    choices.push_back({t.recompute.granularity, t.recompute.modules, t.recompute.method,
                       t.recompute.num_layers});
    l.recompute = static_cast<int>(choices.size() - 1);
  }
  return l;
}

void apply_layout(const Layout& l, const std::vector<RecomputeChoice>& choices, const OverlapKeep& keep,
                  config::JobSpec& spec)
{
  auto& p = spec.parallelism;
  auto& t = spec.training;
  p.tp = l.tp;
  p.pp = l.pp;
  p.vpp = l.vpp > 1 ? std::optional<int>(l.vpp) : std::nullopt;
  p.cp = l.cp;
  p.ep = l.ep;
  p.etp = spec.model.moe ? std::optional<int>(l.etp) : std::nullopt;
  p.first_stage_layers = l.first_stage_layers >= 0 ? std::optional<int>(l.first_stage_layers) : std::nullopt;
  p.last_stage_layers = l.last_stage_layers >= 0 ? std::optional<int>(l.last_stage_layers) : std::nullopt;
  p.account_for_embedding_in_pipeline_split = l.account_embedding;
  p.account_for_loss_in_pipeline_split = l.account_loss;
  p.sequence_parallel = l.sequence_parallel;
  t.micro_batch_size = l.micro_batch_size;
  const RecomputeChoice& r = choices.at(static_cast<std::size_t>(l.recompute));
  t.recompute.granularity = r.granularity;
  t.recompute.modules = r.modules;
  t.recompute.method = r.method;
  t.recompute.num_layers = r.num_layers;
  t.distributed_optimizer = l.distributed_optimizer;
  t.fsdp = l.fsdp ? config::Fsdp::megatron : config::Fsdp::none;
  if (l.fsdp) {
    t.fsdp_sharding = "optim_grads_params";
  }
  t.cpu_offloading_layers = l.cpu_offloading_layers;
  if (l.deepep && spec.model.moe) {
    spec.model.moe->token_dispatcher = "flex";
    spec.model.moe->flex_backend = "deepep";
  }
  if (!keep.tp_comm) {
    t.tp_comm_overlap = l.tp > 1 && l.sequence_parallel;
  }
  if (!keep.grad_reduce) {
    t.overlap_grad_reduce = true;
  }
  if (!keep.param_gather) {
    t.overlap_param_gather = l.distributed_optimizer && !l.fsdp;
  }
}

std::string describe(const RecomputeChoice& r)
{
  switch (r.granularity) {
  case config::RecomputeGranularity::none: return "none";
  case config::RecomputeGranularity::selective: {
    config::RecomputeSpec spec;
    spec.granularity = r.granularity;
    spec.modules = r.modules;
    std::string out;
    for (const auto& m : config::recompute_modules(spec)) {
      out += (out.empty() ? "" : "+") + m;
    }
    return out;
  }
  case config::RecomputeGranularity::full:
    return fmt::format("full/{}/{}", r.method == config::RecomputeMethod::uniform ? "uniform" : "block",
                       r.num_layers);
  }
  return "none";
}

std::string describe(const Layout& l, const std::vector<RecomputeChoice>& choices)
{
  std::string out = fmt::format("tp{} pp{}", l.tp, l.pp);
  if (l.vpp > 1) {
    out += fmt::format(" vpp{}", l.vpp);
  }
  if (l.account_embedding || l.account_loss) {
    out += l.account_embedding && l.account_loss ? " split+emb+loss" : l.account_embedding ? " split+emb" : " split+loss";
  }
  out += fmt::format(" cp{}", l.cp);
  if (l.ep > 1 || l.etp != l.tp) {
    out += fmt::format(" ep{} etp{}", l.ep, l.etp);
  }
  out += fmt::format(" mbs{}", l.micro_batch_size);
  if (l.sequence_parallel) {
    out += " sp";
  }
  out += " rc=" + describe(choices.at(static_cast<std::size_t>(l.recompute)));
  if (l.fsdp) {
    out += " fsdp";
  } else if (l.distributed_optimizer) {
    out += " dist-opt";
  }
  if (l.cpu_offloading_layers > 0) {
    out += fmt::format(" offload{}", l.cpu_offloading_layers);
  }
  if (l.deepep) {
    out += " deepep";
  }
  return out;
}

} // namespace lg::tune
