#include "estimate/error_band.hpp"

#include <algorithm>
#include <string_view>

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

} // namespace

std::vector<std::string> feature_groups(const config::JobSpec& spec)
{
  const auto& p = spec.parallelism;
  const auto& t = spec.training;
  std::vector<std::string> out;
  const auto add = [&](bool on, const char* name) {
    if (on) {
      out.emplace_back(name);
    }
  };
  add(p.pp > 1, "pp_vpp");
  add(p.cp > 1, "cp");
  add(spec.model.moe.has_value(), "moe_ep");
  add(spec.model.mla.has_value(), "mla");
  add(spec.model.mtp_num_layers > 0, "mtp");
  add(spec.peft.method != "none", "lora");
  add(config::is_fp8(t.precision) || config::is_fp4(t.precision), "fp8");
  add(recomputes(spec), "recompute");
  add(t.cpu_offloading_layers > 0 || t.fine_grained_activation_offloading ||
          t.optimizer.cpu_offload_fraction > 0,
      "offload");
  add(t.cuda_graphs != config::CudaGraphs::none, "cuda_graphs");
  add(t.fsdp != config::Fsdp::none, "fsdp");
  return out;
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

Band error_band(const config::JobSpec& spec)
{
  const auto groups = feature_groups(spec);
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

} // namespace lg::estimate
