// The estimate's error band: the validation error of measured records with
// the same feature mix, shipped as data (error_band_data.inc, written by
// bench/estimator/update-error-bands from the benchmark) and looked up per
// job. Pure.
#pragma once

#include "config/job_spec.hpp"

#include <string>
#include <vector>

namespace lg::estimate {

// The feature groups a job belongs to, in a fixed order: "pp_vpp", "cp",
// "moe_ep", "mla", "mtp", "lora", "fp8", "recompute", "offload" (fine-grained
// activation offloading), "cuda_graphs", "fsdp", "layer_offload" (whole-layer
// activation offloading), "optimizer_offload". Empty for a plain dense job.
std::vector<std::string> feature_groups(const config::JobSpec& spec);

// "pp_vpp+fp8+recompute", or "dense" for no group.
std::string feature_mix(const std::vector<std::string>& groups);

struct Band
{
  double relative = 0;  // one-sided band as a fraction of the estimate
  std::string source;   // the mix or group it was taken from, "all" for the fallback
  int records = 0;      // validation records behind it
};

// Return the band for `spec`: the record's exact feature mix when the data
// has at least 3 records of it, else the widest band among its groups (a
// group with one or two records gives what they measured; a group with no
// validation record at all gives k_unvalidated_band, source
// "unvalidated:<group>"), else the band of all records.
Band error_band(const config::JobSpec& spec);

// The band of a feature no validation record covers: the accuracy bound the
// estimator is held to (within 10 %), not a measured error.
inline constexpr double k_unvalidated_band = 0.10;

} // namespace lg::estimate
