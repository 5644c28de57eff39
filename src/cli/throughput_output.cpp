#include "cli/throughput_output.hpp"

#include <fmt/core.h>

#include <cmath>

namespace lg::cli {
namespace {

// Round to 4 significant digits so JSON output stays stable and readable.
double round4(double value)
{
  if (value == 0 || !std::isfinite(value)) {
    return 0;
  }
  const double scale = std::pow(10.0, 3 - static_cast<int>(std::floor(std::log10(std::abs(value)))));
  return std::round(value * scale) / scale;
}

} // namespace

nlohmann::json to_json(const throughput::Throughput& t)
{
  return {{"step_time_s", round4(t.step_time_s)},
          {"tflops_per_gpu", round4(t.tflops_per_gpu)},
          {"tokens_per_sec_per_gpu", round4(t.tokens_per_sec_per_gpu)}};
}

nlohmann::json costs_json(const throughput::Throughput& t)
{
  nlohmann::json costs = nlohmann::json::object();
  for (const auto& [name, seconds] : t.costs) {
    costs[name] = round4(seconds);
  }
  return costs;
}

std::string throughput_line(const throughput::Throughput& t)
{
  const double share = t.step_time_s > 0 ? 100 * throughput::cost(t, t.main_cost) / t.step_time_s : 0;
  return fmt::format("predicted {:.0f} TFLOP/s/GPU, {:.0f} tokens/s/GPU, step {:.2f} s (main cost: {} "
                     "{:.0f}%)",
                     t.tflops_per_gpu, t.tokens_per_sec_per_gpu, t.step_time_s, t.main_cost, share);
}

void print_caveats(const throughput::Throughput& t)
{
  for (const auto& caveat : t.caveats) {
    fmt::print("  not calibrated: {}\n", caveat);
  }
}

} // namespace lg::cli
