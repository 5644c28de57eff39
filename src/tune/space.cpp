#include "tune/space.hpp"

#include "util/error.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>

namespace lg::tune {
namespace {

bool set_by_job(const config::JobSpec& spec, const char* key)
{
  return spec.locations.count(key) != 0;
}

// Set by the job's own inputs, not by its model preset (every MoE preset
// names the model's default dispatcher, which is no choice of the job's).
bool set_beside_preset(const config::JobSpec& spec, const char* key)
{
  const auto it = spec.locations.find(key);
  if (it == spec.locations.end()) {
    return false;
  }
  const std::filesystem::path file(it->second.file);
  return spec.model.preset.empty() || file.stem() != spec.model.preset || file.parent_path().filename() != "models";
}

std::vector<int> powers_of_two(int limit)
{
  std::vector<int> out;
  for (int v = 1; v <= limit; v *= 2) {
    out.push_back(v);
  }
  return out;
}

std::vector<int> divisors(int n, int limit)
{
  std::vector<int> out;
  for (int d = 1; d <= std::min(n, limit); ++d) {
    if (n % d == 0) {
      out.push_back(d);
    }
  }
  return out;
}

// Layers per pipeline rank: even, or, when the layers plus the embedding and
// the loss divide, the embedding and the loss counted as one layer each
// (--account-for-embedding/loss-in-pipeline-split: each end stage one layer
// short, and every virtual stage holds per_rank / vpp of the counted layers,
// as the Megatron Bridge recipes of Llama 3.1 405B and Qwen3-235B-A22B split).
struct Split
{
  bool ok = false;
  int first = -1, last = -1;
  int per_rank = 0;  // middle ranks (counted layers with `account`)
  bool account = false;
};

Split split_layers(int layers, int pp)
{
  Split s;
  if (pp <= 0 || layers <= 0) {
    return s;
  }
  if (layers % pp == 0) {
    s.ok = true;
    s.per_rank = layers / pp;
    return s;
  }
  if (pp >= 2 && (layers + 2) % pp == 0 && (layers + 2) / pp >= 2) {
    s.ok = true;
    s.per_rank = (layers + 2) / pp;
    s.account = true;
  }
  return s;
}

// The number of virtual stages a job's pipeline layout string gives, 0 without
// one (or with one the loader would reject).
int layout_stage_count(const config::JobSpec& spec)
{
  if (spec.parallelism.pipeline_layout.empty()) {
    return 0;
  }
  try {
    return static_cast<int>(config::parse_pipeline_layout(spec.parallelism.pipeline_layout).size());
  } catch (const InputError&) {
    return 0;
  }
}

} // namespace

// The --free names and the Free member each one sets, in order.
struct Dimension
{
  const char* name;
  bool Free::*member;
};
constexpr Dimension k_dimensions[] = {
  {"tp", &Free::tp}, {"pp", &Free::pp}, {"vpp", &Free::vpp}, {"cp", &Free::cp}, {"ep", &Free::ep},
  {"etp", &Free::etp}, {"mbs", &Free::mbs}, {"sp", &Free::sp}, {"recompute", &Free::recompute},
  {"distributed_optimizer", &Free::distributed_optimizer}, {"fsdp", &Free::fsdp}, {"offload", &Free::offload},
  {"dispatcher", &Free::dispatcher}};

const std::vector<std::string>& dimension_names()
{
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Dimension& d : k_dimensions) {
      out.emplace_back(d.name);
    }
    return out;
  }();
  return names;
}

Free free_dimensions(const config::JobSpec& spec, const std::vector<std::string>& names, bool job_file)
{
  Free f;
  if (job_file) {
    f.tp = !set_by_job(spec, "parallelism.tp");
    f.pp = !set_by_job(spec, "parallelism.pp");
    f.vpp = !set_by_job(spec, "parallelism.vpp");
    f.cp = !set_by_job(spec, "parallelism.cp");
    f.ep = !set_by_job(spec, "parallelism.ep");
    f.etp = !set_by_job(spec, "parallelism.etp");
    f.mbs = !set_by_job(spec, "training.micro_batch_size");
    f.sp = !set_by_job(spec, "parallelism.sequence_parallel");
    f.recompute = !set_by_job(spec, "training.recompute");
    f.distributed_optimizer = !set_by_job(spec, "training.distributed_optimizer");
    f.fsdp = !set_by_job(spec, "training.fsdp");
    f.offload = !set_by_job(spec, "training.cpu_offloading_layers");
    f.dispatcher = !set_beside_preset(spec, "model.moe.token_dispatcher");
  }
  for (const std::string& name : names) {
    if (name == "all") {
      f = Free{};
      continue;
    }
    bool Free::*member = nullptr;
    for (const Dimension& d : k_dimensions) {
      if (name == d.name) {
        member = d.member;
      }
    }
    if (member == nullptr) {
      std::string list;
      for (const auto& n : dimension_names()) {
        list += (list.empty() ? "" : ", ") + n;
      }
      UsageError error("--free: unknown dimension '{}'", name);
      error.hint = fmt::format("use a comma-separated list of {}, or all", list);
      throw error;
    }
    f.*member = true;
  }
  return f;
}

std::vector<RecomputeChoice> recompute_choices(const config::ModelSpec& model, int layers_per_chunk)
{
  using G = config::RecomputeGranularity;
  std::vector<RecomputeChoice> out = {{G::none, {}, config::RecomputeMethod::uniform, 1},
                                      {G::selective, {"core_attn"}, config::RecomputeMethod::uniform, 1},
                                      {G::selective, {"core_attn", "mlp"}, config::RecomputeMethod::uniform, 1}};
  if (model.moe) {
    out.push_back({G::selective, {"moe_act"}, config::RecomputeMethod::uniform, 1});
  }
  if (model.mla) {
    out.push_back({G::selective, {"mla_up_proj"}, config::RecomputeMethod::uniform, 1});
  }
  out.push_back({G::full, {}, config::RecomputeMethod::uniform, 1});
  if (layers_per_chunk >= 2) {
    out.push_back({G::full, {}, config::RecomputeMethod::block, layers_per_chunk / 2});
  }
  return out;
}

SpaceCounts enumerate(const config::JobSpec& base, const Free& free, const Layout& fixed,
                      int recompute_count, const std::function<bool(const Layout&)>& visit)
{
  SpaceCounts counts;
  const auto& m = base.model;
  const int world = std::max(1, config::world_size(base));
  const int layers = m.num_layers;
  const int heads = std::max(1, m.num_attention_heads);
  const int groups = std::max(1, config::num_query_groups(m));
  const int gbs = base.training.global_batch_size;
  const bool moe = m.moe && m.moe->num_experts > 0;
  const int experts = moe ? m.moe->num_experts : 1;
  auto one = [](int v) { return std::vector<int>{v}; };
  // DeepEP's internode kernels instead of the job's all-to-all or all-gather
  // where the EP group (EP x ETP consecutive ranks) spans NVLink domains and
  // the GPU runs DeepEP; inside one domain the dispatcher changes no modelled
  // cost, and HybridEP (GB200/GB300) has no memory model.
  const bool try_deepep = moe && free.dispatcher && m.moe->token_dispatcher != "flex"
                          && config::deepep_supported(base.cluster.gpu_info);
  const int domain = std::max(1, base.cluster.gpu_info.nvlink_domain);
  auto deepep_choices = [&](int group) {
    return try_deepep && group > domain ? std::vector<bool>{false, true} : std::vector<bool>{false};
  };
  const auto tps = free.tp ? powers_of_two(std::min(world, 64)) : one(fixed.tp);
  const auto cps = free.cp ? powers_of_two(std::min(world, 32)) : one(fixed.cp);
  // Ascending: enumerate() relies on it (see space.hpp).
  const auto mbss = free.mbs ? std::vector<int>{1, 2, 4, 8, 16} : one(fixed.micro_batch_size);
  const auto offloads = free.offload ? std::vector<int>{0, std::max(1, layers / 2)}
                                     : one(fixed.cpu_offloading_layers);
  // Descending: the full-recompute choices (the lightest) come before the
  // selective ones and none, so search() can skip what the lightest did not fit.
  std::vector<int> recomputes;
  for (int i = recompute_count - 1; i >= 0; --i) {
    if (free.recompute || i == fixed.recompute) {
      recomputes.push_back(i);
    }
  }
  // (fsdp, distributed optimizer) pairs: FSDP shards the optimizer itself.
  std::vector<std::pair<bool, bool>> sharding;
  for (bool fsdp : free.fsdp ? std::vector<bool>{false, true} : std::vector<bool>{fixed.fsdp}) {
    for (bool dist : free.distributed_optimizer ? std::vector<bool>{true, false}
                                                : std::vector<bool>{fixed.distributed_optimizer}) {
      if (fsdp && !dist && free.distributed_optimizer) {
        continue;
      }
      sharding.emplace_back(fsdp, dist);
    }
  }
  // A pipeline layout string (Megatron-LM pipeline_model_parallel_layout, as the
  // DeepSeek-V3 recipes set) places every layer on one of its stages, and stage i
  // runs as chunk i / pp of pipeline rank i % pp: a PP > 1 that divides the stage
  // count keeps the layout, with vpp = stages / pp (the rules' layout_consistent,
  // after core/transformer/pipeline_parallel_layer_layout.py). No even split is
  // needed then; PP 1 is searched as before.
  const int stages = layout_stage_count(base);
  for (int tp : tps) {
    std::vector<int> pps = free.pp ? divisors(world / tp > 0 ? world / tp : 1, std::max(1, layers)) : one(fixed.pp);
    if (stages > 0 && free.pp) {
      pps = {1};
      for (int pp : divisors(world / tp > 0 ? world / tp : 1, stages)) {
        if (pp > 1 && stages % pp == 0) {
          pps.push_back(pp);
        }
      }
    }
    for (int pp : pps) {
      const int counted = layers + (fixed.account_embedding ? 1 : 0) + (fixed.account_loss ? 1 : 0);
      const bool by_layout = stages > 0 && pp > 1;
      const Split split = by_layout ? Split{stages % pp == 0, -1, -1, 0, false}
                          : free.pp ? split_layers(layers, pp)
                                    : Split{true, fixed.first_stage_layers, fixed.last_stage_layers,
                                            counted / std::max(1, pp), fixed.account_embedding || fixed.account_loss};
      std::vector<int> vpps;
      if (by_layout) {
        vpps.push_back(stages / pp > 1 ? stages / pp : 0);
      } else if (free.vpp) {
        vpps.push_back(0);
        for (int v = 2; pp > 1 && split.per_rank > 0 && v <= split.per_rank; ++v) {
          if (split.per_rank % v == 0 && (split.first < 0 || split.first % v == 0)) {
            vpps.push_back(v);
          }
        }
      } else {
        vpps.push_back(fixed.vpp);
      }
      std::vector<int> eps = {fixed.ep};
      std::vector<int> etps = {fixed.etp};
      if (moe && free.ep) {
        eps = powers_of_two(std::min(experts, world));
      }
      for (int cp : cps) {
        for (int ep : eps) {
          if (moe && free.etp) {
            etps = tp > 1 ? std::vector<int>{1, tp} : std::vector<int>{1};
          } else if (!moe) {
            etps = {tp};
          }
          for (int etp : etps) {
           for (bool deepep : deepep_choices(ep * etp)) {
            for (int vpp : vpps) {
              const std::vector<bool> sps =
                  free.sp ? (tp > 1 ? std::vector<bool>{true, false} : std::vector<bool>{false})
                          : std::vector<bool>{fixed.sequence_parallel};
              for (bool sp : sps) {
                for (int rc : recomputes) {
                  for (const auto& [fsdp, dist] : sharding) {
                    for (int offload : offloads) {
                      bool over = false;
                      for (int mbs : mbss) {
                        ++counts.searched;
                        const int model_parallel = tp * pp * cp;
                        const int dp = world % model_parallel == 0 ? world / model_parallel : 0;
                        const bool ok = dp > 0 && heads % tp == 0 && (groups % tp == 0 || tp % groups == 0)
                                        && split.ok && gbs % (mbs * dp) == 0
                                        && (!moe || (experts % ep == 0 && (world / pp) % (ep * etp) == 0))
                                        && (offload == 0 || pp == 1);
                        if (!ok) {
                          ++counts.structurally_invalid;
                          continue;
                        }
                        if (over) {
                          ++counts.over_memory_by_smaller_mbs;
                          continue;
                        }
                        Layout l;
                        l.tp = tp;
                        l.pp = pp;
                        l.vpp = vpp;
                        l.cp = cp;
                        l.ep = ep;
                        l.etp = etp;
                        l.first_stage_layers = split.first;
                        l.last_stage_layers = split.last;
                        l.account_embedding = free.pp ? split.account : fixed.account_embedding;
                        l.account_loss = free.pp ? split.account : fixed.account_loss;
                        l.micro_batch_size = mbs;
                        l.sequence_parallel = sp;
                        l.recompute = rc;
                        l.fsdp = fsdp;
                        l.distributed_optimizer = dist;
                        l.cpu_offloading_layers = offload;
                        l.deepep = deepep;
                        over = !visit(l);
                      }
                    }
                  }
                }
              }
            }
           }
          }
        }
      }
    }
  }
  return counts;
}

} // namespace lg::tune
