// Pipeline placement: which transformer layers each pipeline rank holds (with
// uneven first/last stages and interleaved VPP chunks) and how many
// microbatches' activations are alive at that rank's peak under 1F1B or the
// interleaved schedule.
#pragma once

#include "config/job_spec.hpp"

#include <vector>

namespace lg::estimate {

struct StageLayout
{
  int pp_rank = 0;
  std::vector<int> layers;   // 0-based transformer layer indices (all VPP chunks)
  bool has_embedding = false;
  bool has_output = false;   // final norm, output layer, loss
  int mtp_layers = 0;        // MTP modules live on the last stage
  int chunks = 1;            // model chunks (VPP) on this rank
  // Chunk-microbatches whose activations are alive at this rank's peak.
  int in_flight_chunks = 1;
  // Distinct microbatches alive at the peak (for the embedding input, which
  // only the first chunk holds).
  int in_flight_microbatches = 1;
};

// Return the number of chunk-microbatches alive at pipeline rank `rank`'s
// peak: 1F1B min(pp - rank, M); interleaved (vpp > 1) the warm-up count
// (pp - rank - 1) * 2 + (vpp - 1) * pp plus the one in its first 1F1B step,
// capped by M * vpp.
int in_flight_chunks(int pp, int rank, int vpp, int microbatches);

// Return the layout of every pipeline rank. Layers that do not divide evenly
// go to the last ranks; a degenerate spec yields a best-effort layout.
std::vector<StageLayout> pipeline_layout(const config::JobSpec& spec);

// Microbatches per step per data-parallel replica; falls back to
// ceil(gbs / (mbs * dp)) (at least 1) when not integral.
int microbatches_per_step(const config::JobSpec& spec);

} // namespace lg::estimate
