// One point of the layout space `tune` searches: the parallel sizes, micro
// batch, sequence parallelism, recompute, distributed optimizer, FSDP and
// activation offloading, and how it is written into a JobSpec. Pure.
#pragma once

#include "config/job_spec.hpp"

#include <string>
#include <vector>

namespace lg::tune {

// The recompute settings `tune` tries.
struct RecomputeChoice
{
  config::RecomputeGranularity granularity = config::RecomputeGranularity::none;
  std::vector<std::string> modules;  // selective
  config::RecomputeMethod method = config::RecomputeMethod::uniform;  // full
  int num_layers = 1;                                                // full
};

struct Layout
{
  int tp = 1, pp = 1, vpp = 0, cp = 1, ep = 1, etp = 1;  // vpp 0 = none
  int first_stage_layers = -1, last_stage_layers = -1;   // -1 = even split
  // --account-for-embedding/loss-in-pipeline-split: the embedding and the
  // loss count as one layer each when the layers are split over the stages.
  bool account_embedding = false, account_loss = false;
  int micro_batch_size = 1;
  bool sequence_parallel = false;
  int recompute = 0;  // index into the request's recompute choices
  bool distributed_optimizer = true;
  bool fsdp = false;  // Megatron FSDP (optim_grads_params)
  int cpu_offloading_layers = 0;
  // The flex dispatcher with DeepEP (set by apply_layout); false keeps the
  // job's own dispatcher.
  bool deepep = false;
};

// Read the layout `spec` has (recompute matched against `choices`, appended
// when not among them).
Layout layout_of(const config::JobSpec& spec, std::vector<RecomputeChoice>& choices);

// Write `layout` into `spec`. `set_overlaps`: also turn on what the Bridge
// performance recipes turn on with it (tp_comm_overlap with TP > 1 and SP,
// overlap_grad_reduce, overlap_param_gather with the distributed optimizer)
// unless `keep_overlaps` says the job set them.
struct OverlapKeep
{
  bool tp_comm = false, grad_reduce = false, param_gather = false;
};
void apply_layout(const Layout& layout, const std::vector<RecomputeChoice>& choices,
                  const OverlapKeep& keep, config::JobSpec& spec);

// "tp4 pp8 vpp5 cp1 ep1 mbs1 sp rc=core_attn dist-opt" — short, for tables.
std::string describe(const Layout& layout, const std::vector<RecomputeChoice>& choices);

// "core_attn+mlp", "full/uniform/1", "none".
std::string describe(const RecomputeChoice& choice);

} // namespace lg::tune
