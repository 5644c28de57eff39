// Helpers shared by the rule topic files.
#include "rules/rule.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace lg::rules {

Context make_context(const config::JobSpec& spec, const estimate::Estimate& estimate)
{
  Context ctx{spec, estimate, 0, 0, 0, 0, false, {}};
  const auto& p = spec.parallelism;
  ctx.world = config::world_size(spec);
  ctx.etp = config::expert_tensor_parallel_size(spec);
  ctx.sizes_ok = p.tp >= 1 && p.pp >= 1 && p.cp >= 1 && p.ep >= 1 && ctx.etp >= 1
                 && (!p.vpp || *p.vpp >= 1) && spec.cluster.nodes >= 1
                 && spec.cluster.gpus_per_node >= 1;
  if (ctx.sizes_ok) {
    ctx.dp = config::data_parallel_size(spec);
    ctx.microbatches = spec.training.micro_batch_size > 0 ? config::num_microbatches(spec) : 0;
  }
  ctx.recompute_modules = config::recompute_modules(spec.training.recompute);
  return ctx;
}

std::string with_upstream(std::string_view what, std::string_view text)
{
  return fmt::format("{}; upstream: {}", what, text);
}

bool contains(const std::vector<std::string>& items, std::string_view item)
{
  return std::find(items.begin(), items.end(), item) != items.end();
}

std::string python_set(const std::vector<std::string>& items)
{
  std::string out = "{";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += fmt::format("{}'{}'", i == 0 ? "" : ", ", items[i]);
  }
  return out + "}";
}

bool is_bridge(const config::JobSpec& spec)
{
  return spec.launch.framework != config::Framework::megatron_lm;
}

bool is_moe(const config::ModelSpec& model)
{
  return model.moe && model.moe->num_experts > 0;
}

bool all_layers_moe(const config::ModelSpec& model)
{
  if (!is_moe(model)) {
    return false;
  }
  for (int layer = 0; layer < model.num_layers; ++layer) {
    if (!config::is_moe_layer(model, layer)) {
      return false;
    }
  }
  return true;
}

int layers_per_pp_rank(const Context& ctx)
{
  const int pp = std::max(1, ctx.spec.parallelism.pp);
  return ctx.spec.model.num_layers / pp;
}

} // namespace lg::rules
