// The layout space: which dimensions may change (the job's own settings are
// kept unless --free names them), the values each dimension takes, and the
// structural checks that need no estimate (each one is a rule of `check`:
// parallelism.world_size, heads_divisible_by_tp, query_groups_vs_tp,
// layers_divisible_by_pp, gbs_divisible, expert_world_size, pipeline vpp
// divisibility, offload.cpu_offload_pp). Pure.
#pragma once

#include "config/job_spec.hpp"
#include "tune/layout.hpp"

#include <functional>
#include <string>
#include <vector>

namespace lg::tune {

struct Free
{
  bool tp = true, pp = true, vpp = true, cp = true, ep = true, etp = true, mbs = true, sp = true,
       recompute = true, distributed_optimizer = true, fsdp = true, offload = true;
  // The flex token dispatcher with DeepEP tried beside the job's own where
  // the EP group crosses NVLink domains (docs/tune.md, "The space").
  bool dispatcher = true;
};

// The names --free takes, in order.
const std::vector<std::string>& dimension_names();

// Free dimensions of a job file: those it does not set (per spec.locations),
// plus `names` (dimension_names(), or "all"). Throws UsageError on an unknown name.
Free free_dimensions(const config::JobSpec& spec, const std::vector<std::string>& names, bool job_file);

// The recompute settings tried for `model`: none, selective core_attn, core_attn + mlp,
// moe_act (MoE), mla_up_proj (MLA), full uniform, full block of half the chunk.
std::vector<RecomputeChoice> recompute_choices(const config::ModelSpec& model, int layers_per_chunk);

struct SpaceCounts
{
  long searched = 0;
  long structurally_invalid = 0;  // broke a rule that needs no estimate
  // Not estimated: a smaller micro batch of the same layout was already over
  // memory (the peak grows with the micro batch size).
  long over_memory_by_smaller_mbs = 0;
};

// Call `visit` with every layout of the space around `base` (fixed dimensions
// at `fixed`'s values) that passes the structural checks. Recompute choices
// are visited in descending index order (recompute_choices() lists full
// recompute last); sequence parallelism on before off, the distributed
// optimizer on before off. Micro batch sizes are visited last and ascending; `visit` returns false when the layout was
// over memory, and the larger micro batches of it are then not visited.
SpaceCounts enumerate(const config::JobSpec& base, const Free& free, const Layout& fixed,
                      int recompute_count, const std::function<bool(const Layout&)>& visit);

} // namespace lg::tune
