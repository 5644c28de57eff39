// Map one record of memory_measurements_*.json to a JobSpec, or say why not.
#pragma once

#include "config/job_spec.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace lg::bench {

struct Mapped
{
  config::JobSpec spec;
  bool last_rank = false;        // measured on the last global rank (last PP stage)
  bool expandable_segments = true;
  // The figure comes from a memory report printed once, after iteration 1
  // (Megatron Bridge before PR #3169): compare the first-iteration peak.
  bool first_iteration_report = false;
};

// Return the JobSpec of `record`, or nullopt with `why` set when a field the
// estimate needs is missing.
std::optional<Mapped> record_to_spec(const nlohmann::json& record, std::string& why);

} // namespace lg::bench
