#include "estimate/error_band.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <utility>

namespace lg::estimate {
namespace {

struct BandRow
{
  std::string_view key;  // a feature mix, "group:<name>" or "all"
  int records;
  double p90;  // p90 of |predicted - measured| / measured
};

// Generated data; see bench/estimator/update-error-bands.
constexpr BandRow k_bands[] = {
#include "estimate/error_band_data.inc"
};

const BandRow* find(std::string_view key)
{
  for (const auto& row : k_bands) {
    if (row.key == key) {
      return &row;
    }
  }
  return nullptr;
}

bool recomputes(const config::JobSpec& spec)
{
  return spec.training.recompute.granularity != config::RecomputeGranularity::none;
}

// The feature groups, in feature_groups() order. The three ways of moving
// memory to the host are three mechanisms, each with its own error: "offload"
// is fine-grained activation offloading (Megatron-LM
// pipeline_parallel/fine_grained_activation_offload.py, offload_modules),
// "layer_offload" the whole-layer activation offloading of
// --cpu-offloading-num-layers (Transformer Engine's CPU offload context) and
// "optimizer_offload" --optimizer-cpu-offload (HybridDeviceOptimizer). A
// record of one says nothing about the others.
constexpr const char* k_group_names[] = {"pp_vpp",
                                         "cp",
                                         "moe_ep",
                                         "mla",
                                         "mtp",
                                         "lora",
                                         "fp8",
                                         "recompute",
                                         "offload",
                                         "cuda_graphs",
                                         "fsdp",
                                         "layer_offload",
                                         "optimizer_offload"};

// Bit i set when the job is in group k_group_names[i].
unsigned feature_bits(const config::JobSpec& spec)
{
  const auto& p = spec.parallelism;
  const auto& t = spec.training;
  const bool on[] = {
    p.pp > 1,
    p.cp > 1,
    spec.model.moe.has_value(),
    spec.model.mla.has_value(),
    spec.model.mtp_num_layers > 0,
    spec.peft.method != "none",
    config::is_fp8(t.precision) || config::is_fp4(t.precision),
    recomputes(spec),
    t.fine_grained_activation_offloading,
    t.cuda_graphs != config::CudaGraphs::none,
    t.fsdp != config::Fsdp::none,
    t.cpu_offloading_layers > 0,
    t.optimizer.cpu_offload_fraction > 0,
  };
  static_assert(std::size(on) == std::size(k_group_names));
  unsigned bits = 0;
  for (std::size_t i = 0; i < std::size(on); ++i) {
    bits |= on[i] ? 1U << i : 0U;
  }
  return bits;
}

std::vector<std::string> groups_of(unsigned bits)
{
  std::vector<std::string> out;
  for (std::size_t i = 0; i < std::size(k_group_names); ++i) {
    if ((bits & (1U << i)) != 0) {
      out.emplace_back(k_group_names[i]);
    }
  }
  return out;
}

} // namespace

std::vector<std::string> feature_groups(const config::JobSpec& spec)
{
  return groups_of(feature_bits(spec));
}

std::string feature_mix(const std::vector<std::string>& groups)
{
  if (groups.empty()) {
    return "dense";
  }
  std::string out;
  for (const auto& g : groups) {
    out += (out.empty() ? "" : "+") + g;
  }
  return out;
}

namespace {

Band band_of(unsigned bits)
{
  const auto groups = groups_of(bits);
  const std::string mix = feature_mix(groups);
  if (const BandRow* row = find(mix); row != nullptr && row->records >= 3) {
    return Band{row->p90, mix, row->records};
  }
  // A feature with few records keeps the error they showed, and one with
  // none is not narrowed by the records of other features.
  Band widest;
  for (const auto& g : groups) {
    const BandRow* row = find("group:" + g);
    const Band band = row != nullptr && row->records > 0
                          ? Band{row->p90, g, row->records}
                          : Band{k_unvalidated_band, "unvalidated:" + g, 0};
    if (band.relative > widest.relative) {
      widest = band;
    }
  }
  if (!groups.empty()) {
    return widest;
  }
  if (const BandRow* all = find("all"); all != nullptr) {
    return Band{all->p90, "all", all->records};
  }
  return Band{0.10, "default", 0};
}

} // namespace

Band error_band(const config::JobSpec& spec)
{
  // The band depends on the feature mix only; a search meets a few mixes
  // many times. At most one entry per mix (2^13).
  thread_local std::vector<std::pair<unsigned, Band>> known;
  const unsigned bits = feature_bits(spec);
  for (const auto& [k, band] : known) {
    if (k == bits) {
      return band;
    }
  }
  return known.emplace_back(bits, band_of(bits)).second;
}

} // namespace lg::estimate
