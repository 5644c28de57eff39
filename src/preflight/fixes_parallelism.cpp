// Parallelism fixes: double PP (keeping DP when more GPUs are the only way,
// halving it on a fixed GPU count) and double TP (the last resort).
#include "preflight/fixes_parallelism.hpp"

#include <string>

namespace lg::preflight {

namespace {

std::string str(int value)
{
  return std::to_string(value);
}

// Rescale the job to a new model-parallel size on the same GPU count when DP
// can halve, else on twice the nodes with DP kept. Return the DP note.
std::string resize_world(config::JobSpec& fixed, int old_dp, bool& halved)
{
  halved = old_dp % 2 == 0;
  if (halved) {
    return "dp " + str(old_dp) + " -> " + str(old_dp / 2);
  }
  fixed.cluster.nodes *= 2;
  return "dp " + str(old_dp) + " kept, nodes -> " + str(fixed.cluster.nodes);
}

} // namespace

std::optional<AppliedFix> fix_increase_pp(const config::JobSpec& spec)
{
  const auto& p = spec.parallelism;
  const int pp = p.pp * 2;
  const int vpp = p.vpp.value_or(1);
  const int dp = config::data_parallel_size(spec);
  if (dp <= 0 || spec.model.num_layers % pp != 0 || (spec.model.num_layers / pp) % vpp != 0 ||
      p.first_stage_layers || p.last_stage_layers || spec.training.cpu_offloading_layers > 0) {
    return std::nullopt;
  }
  AppliedFix fix{spec, "", ""};
  fix.spec.parallelism.pp = pp;
  bool halved = false;
  const std::string note = resize_world(fix.spec, dp, halved);
  if (config::num_microbatches(fix.spec) == 0) {
    return std::nullopt;
  }
  fix.description = "pp " + str(p.pp) + " -> " + str(pp) + ", " + note;
  fix.throughput_cost = halved ? "~-6% (DP halved, Llama3 70B PP4->8: -5.9%)"
                               : "small (more pipeline stages, same DP; needs more GPUs)";
  return fix;
}

std::optional<AppliedFix> fix_increase_tp(const config::JobSpec& spec)
{
  const auto& p = spec.parallelism;
  const auto& m = spec.model;
  const int tp = p.tp * 2;
  const int dp = config::data_parallel_size(spec);
  if (dp <= 0 || tp > spec.cluster.gpu_info.nvlink_domain || tp > spec.cluster.gpus_per_node ||
      m.num_attention_heads % tp != 0 || config::num_query_groups(m) % tp != 0) {
    return std::nullopt;
  }
  AppliedFix fix{spec, "", "-28% (Llama3 70B TP4->8: -28.4%)"};
  fix.spec.parallelism.tp = tp;
  if (!p.etp && m.moe) {
    fix.spec.parallelism.etp = p.tp;  // keep the expert layout
  }
  bool halved = false;
  const std::string note = resize_world(fix.spec, dp, halved);
  if (config::num_microbatches(fix.spec) == 0 || config::expert_data_parallel_size(fix.spec) == 0) {
    return std::nullopt;
  }
  fix.description = "tp " + str(p.tp) + " -> " + str(tp) + ", " + note;
  return fix;
}

} // namespace lg::preflight
