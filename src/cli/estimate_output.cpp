#include "cli/estimate_output.hpp"

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "util/bytes.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace lg::cli {

nlohmann::json to_json(const estimate::Estimate& e)
{
  auto bytes = [](double value) { return static_cast<std::int64_t>(std::llround(value)); };
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& stage : e.stages) {
    nlohmann::json components = nlohmann::json::object();
    for (const auto& [name, value] : stage.components) {
      components[name] = bytes(value);
    }
    stages.push_back({{"pp_rank", stage.pp_rank},
                      {"layers", stage.layers},
                      {"in_flight_microbatches", stage.in_flight_microbatches},
                      {"allocated_peak_bytes", bytes(stage.allocated_peak_bytes)},
                      {"device_peak_bytes", bytes(stage.device_peak_bytes)},
                      {"first_iteration_allocated_bytes", bytes(stage.first_iteration_allocated_bytes)},
                      {"band_bytes", bytes(stage.band_bytes)},
                      {"components", components}});
  }
  nlohmann::json what_if = nlohmann::json::array();
  for (const auto& w : e.what_if) {
    what_if.push_back({{"fix", w.fix},
                       {"description", w.description},
                       {"peak_bytes", bytes(w.peak_bytes)},
                       {"saves_bytes", bytes(w.saves_bytes)},
                       {"throughput_cost", w.throughput_cost}});
  }
  return {{"parameters",
           {{"total", e.parameters.total}, {"active", e.parameters.active}, {"per_gpu", e.parameters.per_gpu}}},
          {"peak_bytes", bytes(e.peak_bytes)},
          {"band_bytes", bytes(e.band_bytes)},
          {"band_group", e.band_group},
          {"not_modelled", e.not_modelled},
          {"capacity_bytes", bytes(e.capacity_bytes)},
          {"verdict", estimate::to_string(e.verdict)},
          {"stages", stages},
          {"most_loaded_pp_rank", e.most_loaded_pp_rank},
          {"what_if", what_if},
          {"assumptions", e.assumptions}};
}

static const char* verdict_color(estimate::Verdict verdict)
{
  switch (verdict) {
  case estimate::Verdict::fits:
    return "green";
  case estimate::Verdict::borderline:
    return "yellow";
  case estimate::Verdict::oom:
    return "red";
  case estimate::Verdict::unknown:
    return "bold";
  }
  return "bold";
}

std::string verdict_line(const GlobalOptions& global, const estimate::Estimate& e)
{
  const double share = e.capacity_bytes > 0 ? 100.0 * e.peak_bytes / e.capacity_bytes : 0.0;
  std::string line = fmt::format(
      "peak {} ± {:.1f} of {} ({:.0f}%) on pp rank {}: {}", format_bytes(e.peak_bytes), e.band_bytes / k_gib,
      format_bytes(e.capacity_bytes), share, e.most_loaded_pp_rank,
      colorize(global.color, verdict_color(e.verdict), estimate::to_string(e.verdict)));
  if (!e.not_modelled.empty()) {
    line += fmt::format(" (not modelled: {})", e.not_modelled.front());
  }
  return line;
}

static std::string bar(double value, double scale, int width)
{
  const int filled = scale > 0 ? static_cast<int>(std::lround(value / scale * width)) : 0;
  std::string out;
  for (int i = 0; i < std::clamp(filled, 0, width); ++i) {
    out += "█";
  }
  return out;
}

static void print_stage(const GlobalOptions& global, const estimate::StageEstimate& stage, double scale)
{
  fmt::print("{}\n", colorize(global.color, "bold",
                              fmt::format("pp rank {} — {} layers, {} microbatches in flight: allocated {}, device {} ± {:.1f}",
                                          stage.pp_rank, stage.layers, stage.in_flight_microbatches,
                                          format_bytes(stage.allocated_peak_bytes),
                                          format_bytes(stage.device_peak_bytes), stage.band_bytes / k_gib)));
  for (const auto& [name, value] : stage.components) {
    if (value <= 0) {
      continue;
    }
    fmt::print("  {:<22} {:>11}  {}\n", name, format_bytes(value), bar(value, scale, 40));
  }
}

void print_estimate(const GlobalOptions& global, const config::JobSpec& spec, const estimate::Estimate& e)
{
  fmt::print("{}: {} on {} x {}, tp {} pp {}{} cp {} ep {} dp {}\n", spec.name,
             spec.model.preset.empty() ? "model" : spec.model.preset, config::world_size(spec),
             spec.cluster.gpu_info.display_name, spec.parallelism.tp, spec.parallelism.pp,
             spec.parallelism.vpp ? fmt::format(" vpp {}", *spec.parallelism.vpp) : "", spec.parallelism.cp,
             spec.parallelism.ep, config::data_parallel_size(spec));
  fmt::print("parameters: {:.2f} B total, {:.2f} B active, {:.2f} B on the most loaded GPU\n\n",
             static_cast<double>(e.parameters.total) / 1e9, static_cast<double>(e.parameters.active) / 1e9,
             static_cast<double>(e.parameters.per_gpu) / 1e9);
  double scale = 0;
  for (const auto& stage : e.stages) {
    for (const auto& [name, value] : stage.components) {
      scale = std::max(scale, value);
    }
  }
  for (const auto& stage : e.stages) {
    print_stage(global, stage, scale);
  }
  fmt::print("\n{}\n", verdict_line(global, e));
  if (!e.what_if.empty()) {
    fmt::print("\nwhat if (the Megatron Bridge memory-tuning guide's fixes, each re-estimated):\n");
    fmt::print("  {:<22} {:>11} {:>11}  {}\n", "fix", "peak", "saves", "throughput cost");
    for (const auto& w : e.what_if) {
      fmt::print("  {:<22} {:>11} {:>11}  {}\n", w.fix, format_bytes(w.peak_bytes), format_bytes(w.saves_bytes),
                 w.throughput_cost);
    }
  }
  for (const auto& reason : e.not_modelled) {
    fmt::print("not modelled: {}\n", reason);
  }
  if (global.verbose > 0) {
    fmt::print("\nassumptions:\n");
    for (const auto& a : e.assumptions) {
      fmt::print("  - {}\n", a);
    }
  }
}

} // namespace lg::cli
