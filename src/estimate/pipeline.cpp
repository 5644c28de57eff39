#include "estimate/pipeline.hpp"

#include "util/error.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <unordered_map>

namespace lg::estimate {
namespace {

// Split `total` over `parts` (at least 1); the extra ones go to the later
// parts (they hold fewer microbatches).
std::vector<int> split_evenly(int total, int parts)
{
  parts = std::max(1, parts);
  total = std::max(0, total);
  std::vector<int> out(static_cast<std::size_t>(parts), total / parts);
  for (int i = parts - total % parts; i < parts; ++i) {
    ++out[static_cast<std::size_t>(i)];
  }
  return out;
}

// Number of layers on each rank (embedding/loss counted as one layer each
// when accounted in the split), honouring uneven first/last stages.
std::vector<int> layers_per_rank(const config::JobSpec& spec, int total)
{
  const auto& p = spec.parallelism;
  const int pp = std::max(1, p.pp);
  if (pp == 1) {
    return {total};
  }
  int remaining = total;
  int first = -1;
  int last = -1;
  if (p.first_stage_layers) {
    first = std::clamp(*p.first_stage_layers, 0, remaining);
    remaining -= first;
  }
  if (p.last_stage_layers) {
    last = std::clamp(*p.last_stage_layers, 0, remaining);
    remaining -= last;
  }
  const int begin = first >= 0 ? 1 : 0;
  const int end = last >= 0 ? pp - 1 : pp;
  std::vector<int> counts(static_cast<std::size_t>(pp), 0);
  const auto middle = split_evenly(remaining, end - begin);
  for (int r = begin; r < end; ++r) {
    counts[static_cast<std::size_t>(r)] = middle[static_cast<std::size_t>(r - begin)];
  }
  if (first >= 0) {
    counts.front() = first;
  }
  if (last >= 0) {
    counts.back() = last;
  }
  return counts;
}

// Virtual stages from an explicit layout; empty when it does not parse or
// does not match pp (the rules report that).
std::vector<config::LayoutStage> layout_stages(const config::JobSpec& spec)
{
  try {
    auto stages = config::parse_pipeline_layout(spec.parallelism.pipeline_layout);
    if (stages.size() % static_cast<std::size_t>(std::max(1, spec.parallelism.pp)) == 0) {
      return stages;
    }
  } catch (const InputError&) {
  }
  return {};
}

} // namespace

std::vector<config::LayoutStage> virtual_stages(const config::JobSpec& spec)
{
  const auto& p = spec.parallelism;
  const int pp = std::max(1, p.pp);
  if (!p.pipeline_layout.empty()) {
    if (auto stages = layout_stages(spec); !stages.empty()) {
      return stages;
    }
  }
  const int vpp = pp > 1 ? std::max(1, p.vpp.value_or(1)) : 1;
  const int emb = p.account_for_embedding_in_pipeline_split ? 1 : 0;
  const int loss = p.account_for_loss_in_pipeline_split ? 1 : 0;
  const auto ranks = layers_per_rank(spec, std::max(0, spec.model.num_layers) + emb + loss);
  std::vector<config::LayoutStage> stages(static_cast<std::size_t>(pp * vpp));
  for (int r = 0; r < pp; ++r) {
    const auto chunks = split_evenly(ranks[static_cast<std::size_t>(r)], vpp);
    for (int c = 0; c < vpp; ++c) {
      stages[static_cast<std::size_t>(c * pp + r)].decoder_layers = chunks[static_cast<std::size_t>(c)];
    }
  }
  stages.front().decoder_layers = std::max(0, stages.front().decoder_layers - emb);
  stages.back().decoder_layers = std::max(0, stages.back().decoder_layers - loss);
  stages.front().embedding = true;
  stages.back().loss = true;
  stages.back().mtp_layers = std::max(0, spec.model.mtp_num_layers);
  return stages;
}

int in_flight_chunks(int pp, int rank, int vpp, int microbatches, int group)
{
  pp = std::max(1, pp);
  microbatches = std::max(1, microbatches);
  if (vpp <= 1) {
    return std::max(1, std::min(pp - rank, microbatches));
  }
  const int g = group > 0 ? group : pp;
  const long long warmup = 2LL * (pp - rank - 1) + static_cast<long long>(vpp - 1) * g;
  return static_cast<int>(std::min<long long>(warmup + 1, static_cast<long long>(microbatches) * vpp));
}

std::vector<int> in_flight_per_chunk(int in_flight, int vpp, int group)
{
  vpp = std::max(1, vpp);
  group = std::max(1, group);
  std::vector<int> out(static_cast<std::size_t>(vpp), 0);
  // Whole rounds of group x vpp forwards, then the partial round.
  const int round = group * vpp;
  const int rounds = std::max(0, in_flight) / round;
  int rest = std::max(0, in_flight) % round;
  for (int c = 0; c < vpp; ++c) {
    const int partial = std::clamp(rest, 0, group);
    rest -= partial;
    out[static_cast<std::size_t>(c)] = rounds * group + partial;
  }
  return out;
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

namespace {

// Everything pipeline_layout reads from a spec.
struct PipelineKey
{
  int pp, vpp, first, last, layers, mtp, microbatches, group;
  bool embedding, loss;
  std::string layout;
  bool operator==(const PipelineKey&) const = default;
};

PipelineKey pipeline_key(const config::JobSpec& spec)
{
  const auto& p = spec.parallelism;
  return {p.pp,
          p.vpp.value_or(0),
          p.first_stage_layers.value_or(-1),
          p.last_stage_layers.value_or(-1),
          spec.model.num_layers,
          spec.model.mtp_num_layers,
          microbatches_per_step(spec),
          p.microbatch_group_size_per_vp_stage,
          p.account_for_embedding_in_pipeline_split,
          p.account_for_loss_in_pipeline_split,
          p.pipeline_layout};
}

struct PipelineKeyHash
{
  std::size_t operator()(const PipelineKey& k) const
  {
    std::size_t h = std::hash<std::string>{}(k.layout);
    for (const int v : {k.pp, k.vpp, k.first, k.last, k.layers, k.mtp, k.microbatches, k.group,
                        (k.embedding ? 1 : 0) + (k.loss ? 2 : 0)}) {
      h = h * 1000003U ^ std::hash<int>{}(v);
    }
    return h;
  }
};

} // namespace

std::shared_ptr<const std::vector<StageLayout>> shared_pipeline_layout(const config::JobSpec& spec)
{
  // A search over the whole space meets a few hundred pipelines, each of them
  // again and again (the microbatch count repeats across TP, CP and MBS):
  // keep them all, up to a bound, and start afresh past it.
  constexpr std::size_t k_kept = 1024;
  thread_local std::unordered_map<PipelineKey, std::shared_ptr<const std::vector<StageLayout>>, PipelineKeyHash>
      kept;
  PipelineKey key = pipeline_key(spec);
  if (const auto it = kept.find(key); it != kept.end()) {
    return it->second;
  }
  if (kept.size() >= k_kept) {
    kept.clear();
  }
  auto layout = std::make_shared<const std::vector<StageLayout>>(pipeline_layout(spec));
  kept.emplace(std::move(key), layout);
  return layout;
}

std::vector<StageLayout> pipeline_layout(const config::JobSpec& spec)
{
  const int pp = std::max(1, spec.parallelism.pp);
  const auto stages = virtual_stages(spec);
  const int vpp = std::max(1, static_cast<int>(stages.size()) / pp);
  const int m = microbatches_per_step(spec);
  const int group = spec.parallelism.microbatch_group_size_per_vp_stage > 0
                        ? spec.parallelism.microbatch_group_size_per_vp_stage
                        : pp;
  std::vector<int> first_layer(stages.size() + 1, 0);
  for (std::size_t i = 0; i < stages.size(); ++i) {
    first_layer[i + 1] = first_layer[i] + stages[i].decoder_layers;
  }
  std::vector<StageLayout> out;
  for (int r = 0; r < pp; ++r) {
    StageLayout s;
    s.pp_rank = r;
    s.chunks = vpp;
    s.in_flight_chunks = in_flight_chunks(pp, r, vpp, m, group);
    s.chunk_in_flight = vpp > 1 ? in_flight_per_chunk(s.in_flight_chunks, vpp, group)
                                : std::vector<int>{s.in_flight_chunks};
    for (int c = 0; c < vpp; ++c) {
      const auto i = static_cast<std::size_t>(c * pp + r);
      std::vector<int> chunk;
      for (int l = first_layer[i]; l < first_layer[i + 1]; ++l) {
        chunk.push_back(l);
        s.layers.push_back(l);
      }
      s.chunk_layers.push_back(std::move(chunk));
      if (stages[i].embedding) {
        s.has_embedding = true;
        s.in_flight_microbatches = s.chunk_in_flight[static_cast<std::size_t>(c)];
      }
      s.has_output = s.has_output || stages[i].loss;
      s.mtp_layers += stages[i].mtp_layers;
    }
    out.push_back(std::move(s));
  }
  return out;
}

} // namespace lg::estimate
