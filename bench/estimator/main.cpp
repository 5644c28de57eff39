// bench_estimator: predict each measured record of memory_measurements_*.json
// with lg::estimate and print per-tier error statistics and the worst records.
// Usage: bench_estimator <memory_measurements.json>
#include "estimate/estimate.hpp"
#include "record_to_spec.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

struct Row
{
  std::string id;
  std::string tier;
  double measured = 0;   // GiB
  double predicted = 0;  // GiB
  double error = 0;      // (pred - meas) / meas
  double steady_measured = -1;
  double steady_predicted = 0;
};

double quantile(std::vector<double> v, double q)
{
  if (v.empty()) {
    return 0;
  }
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

// Persistent state: what the allocator holds after the optimizer step.
double persistent_bytes(const lg::estimate::StageEstimate& stage)
{
  double sum = 0;
  for (const auto& [name, bytes] : stage.components) {
    if (name == "weights" || name == "gradients" || name == "optimizer_state" ||
        name == "fp8_weight_cache" || name == "gemm_workspaces") {
      sum += bytes;
    }
  }
  return sum;
}

std::optional<Row> predict(const nlohmann::json& record, std::string& why)
{
  const auto mapped = lg::bench::record_to_spec(record, why);
  if (!mapped) {
    return std::nullopt;
  }
  const auto& measured = record["measured"];
  if (!measured.contains("value_gib") || !measured["value_gib"].is_number()) {
    why = "no measured value";
    return std::nullopt;
  }
  lg::estimate::Options options;
  options.expandable_segments = mapped->expandable_segments;
  const auto est = lg::estimate::estimate(mapped->spec, options);
  const auto& stage = mapped->last_rank ? est.stages.back() : est.stages.front();
  Row row;
  row.id = record.value("id", "?");
  row.tier = record.value("tier", "?");
  row.measured = measured["value_gib"].get<double>();
  row.predicted = stage.allocated_peak_bytes / k_gib;
  row.error = (row.predicted - row.measured) / row.measured;
  if (measured.contains("steady_state_allocated_gib") &&
      measured["steady_state_allocated_gib"].is_number()) {
    row.steady_measured = measured["steady_state_allocated_gib"].get<double>();
    row.steady_predicted = persistent_bytes(stage) / k_gib;
  }
  return row;
}

void print_tier(const std::string& tier, const std::vector<Row>& rows)
{
  std::vector<double> errors;
  std::vector<double> steady;
  for (const auto& r : rows) {
    errors.push_back(std::fabs(r.error));
    if (r.steady_measured > 0) {
      steady.push_back(std::fabs(r.steady_predicted - r.steady_measured) / r.steady_measured);
    }
  }
  std::printf("%-34s n=%3zu  median |err| %5.1f%%  p90 |err| %5.1f%%", tier.c_str(), rows.size(),
              100 * quantile(errors, 0.5), 100 * quantile(errors, 0.9));
  if (!steady.empty()) {
    std::printf("   steady-state: n=%zu median %5.1f%% p90 %5.1f%%", steady.size(),
                100 * quantile(steady, 0.5), 100 * quantile(steady, 0.9));
  }
  std::printf("\n");
}

} // namespace

int main(int argc, char** argv)
{
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_estimator <memory_measurements.json>\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "bench_estimator: cannot open %s\n", argv[1]);
    return 2;
  }
  const auto records = nlohmann::json::parse(in);
  std::map<std::string, std::vector<Row>> tiers;
  std::map<std::string, int> skipped;
  std::vector<Row> all;
  for (const auto& record : records) {
    std::string why;
    if (auto row = predict(record, why)) {
      tiers[row->tier].push_back(*row);
      all.push_back(*row);
    } else {
      ++skipped[record.value("tier", "?") + ": " + why];
    }
  }
  std::printf("memory estimator vs measured max-allocated (|pred-meas|/meas)\n");
  for (const auto& [tier, rows] : tiers) {
    print_tier(tier, rows);
  }
  std::printf("\nskipped:\n");
  for (const auto& [why, n] : skipped) {
    std::printf("  %3d  %s\n", n, why.c_str());
  }
  std::sort(all.begin(), all.end(),
            [](const Row& a, const Row& b) { return std::fabs(a.error) > std::fabs(b.error); });
  std::printf("\nworst 10:\n");
  for (std::size_t i = 0; i < std::min<std::size_t>(10, all.size()); ++i) {
    const auto& r = all[i];
    std::printf("  %+6.1f%%  pred %7.2f GiB  meas %7.2f GiB  %s (%c)\n", 100 * r.error,
                r.predicted, r.measured, r.id.c_str(), r.tier.empty() ? '?' : r.tier[0]);
  }
  if (argc > 2 && std::string(argv[2]) == "--all") {
    std::printf("\nall:\n");
    for (const auto& r : all) {
      std::printf("  %+6.1f%%  pred %7.2f meas %7.2f  steady pred %6.2f meas %6.2f  %s\n",
                  100 * r.error, r.predicted, r.measured, r.steady_predicted, r.steady_measured,
                  r.id.c_str());
    }
  }
  return 0;
}
