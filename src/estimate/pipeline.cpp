#include "estimate/pipeline.hpp"

#include <algorithm>

namespace lg::estimate {
namespace {

// Number of transformer layers on each rank, honouring uneven first/last.
std::vector<int> layers_per_rank(const config::JobSpec& spec)
{
  const int pp = std::max(1, spec.parallelism.pp);
  const int total = std::max(0, spec.model.num_layers);
  std::vector<int> counts(static_cast<std::size_t>(pp), 0);
  if (pp == 1) {
    counts[0] = total;
    return counts;
  }
  int remaining = total;
  int first = -1;
  int last = -1;
  if (spec.parallelism.first_stage_layers) {
    first = std::clamp(*spec.parallelism.first_stage_layers, 0, remaining);
    remaining -= first;
  }
  if (spec.parallelism.last_stage_layers) {
    last = std::clamp(*spec.parallelism.last_stage_layers, 0, remaining);
    remaining -= last;
  }
  const int begin = first >= 0 ? 1 : 0;
  const int end = last >= 0 ? pp - 1 : pp;
  const int middle = std::max(1, end - begin);
  for (int r = begin; r < end; ++r) {
    // Extra layers go to the later ranks (they hold fewer microbatches).
    const int extra = (r - begin) >= middle - remaining % middle ? 1 : 0;
    counts[static_cast<std::size_t>(r)] = remaining / middle + extra;
  }
  if (first >= 0) {
    counts.front() = first;
  }
  if (last >= 0) {
    counts.back() = last;
  }
  return counts;
}

// Layer indices of rank `rank`: contiguous without VPP; with VPP chunk c of
// rank r holds the (c * pp + r)-th block of L / (pp * v) layers.
std::vector<int> layer_indices(const std::vector<int>& counts, int rank, int vpp, bool even)
{
  std::vector<int> out;
  const int pp = static_cast<int>(counts.size());
  if (vpp > 1 && even) {
    const int per_chunk = counts[0] / vpp;
    for (int c = 0; c < vpp; ++c) {
      const int start = (c * pp + rank) * per_chunk;
      for (int i = 0; i < per_chunk; ++i) {
        out.push_back(start + i);
      }
    }
    return out;
  }
  int start = 0;
  for (int r = 0; r < rank; ++r) {
    start += counts[static_cast<std::size_t>(r)];
  }
  for (int i = 0; i < counts[static_cast<std::size_t>(rank)]; ++i) {
    out.push_back(start + i);
  }
  return out;
}

} // namespace

int in_flight_chunks(int pp, int rank, int vpp, int microbatches)
{
  pp = std::max(1, pp);
  microbatches = std::max(1, microbatches);
  if (vpp <= 1) {
    return std::max(1, std::min(pp - rank, microbatches));
  }
  const int warmup = (pp - rank - 1) * 2 + (vpp - 1) * pp;
  return std::min(warmup + 1, microbatches * vpp);
}

int microbatches_per_step(const config::JobSpec& spec)
{
  if (const int m = config::num_microbatches(spec); m > 0) {
    return m;
  }
  const int dp = std::max(1, config::data_parallel_size(spec));
  const int per_step = std::max(1, spec.training.micro_batch_size * dp);
  return std::max(1, (spec.training.global_batch_size + per_step - 1) / per_step);
}

std::vector<StageLayout> pipeline_layout(const config::JobSpec& spec)
{
  const int pp = std::max(1, spec.parallelism.pp);
  const int vpp = std::max(1, spec.parallelism.vpp.value_or(1));
  const int m = microbatches_per_step(spec);
  const auto counts = layers_per_rank(spec);
  const bool even = std::all_of(counts.begin(), counts.end(),
                                [&](int c) { return c == counts[0] && c % vpp == 0; });
  std::vector<StageLayout> stages;
  for (int r = 0; r < pp; ++r) {
    StageLayout s;
    s.pp_rank = r;
    s.layers = layer_indices(counts, r, vpp, even);
    s.has_embedding = r == 0;
    s.has_output = r == pp - 1;
    s.mtp_layers = s.has_output ? std::max(0, spec.model.mtp_num_layers) : 0;
    s.chunks = vpp;
    s.in_flight_chunks = in_flight_chunks(pp, r, vpp, m);
    // Interleaved warm-up runs groups of pp microbatches through each chunk,
    // so the first chunk holds at most pp of them.
    s.in_flight_microbatches = vpp > 1 ? std::min(m, pp) : s.in_flight_chunks;
    stages.push_back(std::move(s));
  }
  return stages;
}

} // namespace lg::estimate
