// Pipeline placement: which transformer layers each pipeline rank holds (even
// split, uneven first/last stages, embedding/loss accounted in the split, or
// an explicit --pipeline-model-parallel-layout; interleaved VPP chunks) and
// how many microbatches of each chunk are alive at that rank's peak under
// 1F1B or the interleaved schedule.
#pragma once

#include "config/job_spec.hpp"

#include <memory>
#include <vector>

namespace lg::estimate {

struct StageLayout
{
  int pp_rank = 0;
  std::vector<int> layers;   // 0-based transformer layer indices (all VPP chunks)
  // Per model chunk (VPP), the layer indices it holds and how many of its
  // microbatches are alive at this rank's peak.
  std::vector<std::vector<int>> chunk_layers;
  std::vector<int> chunk_in_flight;
  bool has_embedding = false;
  bool has_output = false;   // final norm, output layer, loss
  int mtp_layers = 0;        // MTP modules (the last stage unless a layout places them)
  int chunks = 1;            // model chunks (VPP) on this rank
  // Chunk-microbatches whose activations are alive at this rank's peak.
  int in_flight_chunks = 1;
  // Distinct microbatches alive at the peak through the chunk that holds the
  // embedding (its token ids and dropout mask).
  int in_flight_microbatches = 1;
};

// Return the number of chunk-microbatches alive at pipeline rank `rank`'s
// peak: 1F1B min(pp - rank, M); interleaved (vpp > 1) Megatron's warm-up
// count (pp - rank - 1) * 2 + (vpp - 1) * group plus the one in its first
// 1F1B step, capped by M * vpp (schedules.py get_pp_rank_microbatches).
// `group` is --microbatch-group-size-per-virtual-pipeline-stage (0 = pp).
int in_flight_chunks(int pp, int rank, int vpp, int microbatches, int group = 0);

// Return how many of the first `in_flight` forward chunk-microbatches of the
// interleaved schedule run through each of `vpp` chunks: forwards go through
// chunk (k / group) % vpp.
std::vector<int> in_flight_per_chunk(int in_flight, int vpp, int group);

// Return the layout of every pipeline rank. Layers that do not divide evenly
// go to the last ranks; a degenerate spec yields a best-effort layout.
std::vector<StageLayout> pipeline_layout(const config::JobSpec& spec);

// The same, shared: the layouts are kept per thread (up to a bound), keyed by
// what pipeline_layout reads (PP, VPP, the split settings, the layer counts,
// the microbatches), so a search over many layouts that share a pipeline
// builds it once. The result stays valid while held.
std::shared_ptr<const std::vector<StageLayout>> shared_pipeline_layout(const config::JobSpec& spec);

// Return the number of decoder layers of each virtual stage, in Megatron's
// order (virtual stage i = chunk (i / pp) of pipeline rank (i % pp)), and
// whether a stage holds the embedding / loss / MTP. Size pp * vpp.
std::vector<config::LayoutStage> virtual_stages(const config::JobSpec& spec);

// Microbatches per step per data-parallel replica; falls back to
// ceil(gbs / (mbs * dp)) (at least 1) when not integral.
int microbatches_per_step(const config::JobSpec& spec);

} // namespace lg::estimate
