// bench_estimator: predict each measured record of memory_measurements_*.json
// with lg::estimate and print error statistics per tier and per feature
// group, the worst records, and the Megatron Bridge memory-tuning guide's four Llama3-70B rows.
// Usage: bench_estimator <memory_measurements.json> [--all] [--bands FILE] [--show ID]
//   --show ID     print every stage's components of the records whose id contains ID
//   --bands FILE  write the error-band table (estimate/error_band_data.inc)
#include "config/loader.hpp"
#include "estimate/error_band.hpp"
#include "estimate/estimate.hpp"
#include "record_to_spec.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

struct Row
{
  std::string id;
  std::string tier;
  std::vector<std::string> groups;
  std::string mix;
  double measured = 0;   // GiB
  double predicted = 0;  // GiB
  double error = 0;      // (pred - meas) / meas
  double steady_measured = -1;
  double steady_predicted = 0;
  std::string verdict;
  double band = 0;  // the estimate's error band for this record (fraction)
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
        name == "fp8_weight_cache" || name == "gemm_workspaces" ||
        name == "dispatcher_buffers") {
      sum += bytes;
    }
  }
  return sum;
}

// --show ID: the substring of the record ids whose stages are printed.
std::string g_show;

// Every stage's components of one record's estimate (GiB), for --show.
void show_stages(const std::string& id, const lg::estimate::Estimate& est, bool last_rank)
{
  std::printf("%s (measured on the %s stage)\n", id.c_str(), last_rank ? "last" : "first");
  for (const auto& stage : est.stages) {
    std::printf("  pp rank %d: %d layers, %d in flight, allocated %.3f GiB, first iteration %.3f GiB\n",
                stage.pp_rank, stage.layers, stage.in_flight_microbatches,
                stage.allocated_peak_bytes / k_gib, stage.first_iteration_allocated_bytes / k_gib);
    for (const auto& [name, bytes] : stage.components) {
      std::printf("    %-26.*s %8.3f GiB\n", static_cast<int>(name.size()), name.data(), bytes / k_gib);
    }
  }
  for (const auto& n : est.not_modelled) {
    std::printf("  not modelled: %s\n", n.c_str());
  }
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
  if (!g_show.empty() && record.value("id", "").find(g_show) != std::string::npos) {
    show_stages(record.value("id", "?"), est, mapped->last_rank);
  }
  Row row;
  row.id = record.value("id", "?");
  row.tier = record.value("tier", "?");
  row.groups = lg::estimate::feature_groups(mapped->spec);
  row.mix = lg::estimate::feature_mix(row.groups);
  row.measured = measured["value_gib"].get<double>();
  const double bytes = mapped->first_iteration_report ? stage.first_iteration_allocated_bytes
                                                      : stage.allocated_peak_bytes;
  row.predicted = bytes / k_gib;
  row.error = (row.predicted - row.measured) / row.measured;
  row.verdict = lg::estimate::to_string(est.verdict);
  row.band = lg::estimate::error_band(mapped->spec).relative;
  if (measured.contains("steady_state_allocated_gib") &&
      measured["steady_state_allocated_gib"].is_number()) {
    row.steady_measured = measured["steady_state_allocated_gib"].get<double>();
    row.steady_predicted = persistent_bytes(stage) / k_gib;
  }
  return row;
}

struct Stats
{
  std::size_t n = 0;
  double median = 0;
  double p90 = 0;
  double max = 0;
  double within10 = 0;
  double signed_median = 0;
};

Stats stats_of(const std::vector<const Row*>& rows)
{
  std::vector<double> abs;
  std::vector<double> signed_errors;
  for (const Row* r : rows) {
    abs.push_back(std::fabs(r->error));
    signed_errors.push_back(r->error);
  }
  Stats s;
  s.n = rows.size();
  s.median = quantile(abs, 0.5);
  s.p90 = quantile(abs, 0.9);
  s.max = abs.empty() ? 0 : *std::max_element(abs.begin(), abs.end());
  s.within10 = abs.empty() ? 0
                           : static_cast<double>(std::count_if(abs.begin(), abs.end(),
                                                               [](double e) { return e <= 0.10; })) /
                                 static_cast<double>(abs.size());
  s.signed_median = quantile(signed_errors, 0.5);
  return s;
}

void print_stats(const std::string& name, const std::vector<const Row*>& rows)
{
  const Stats s = stats_of(rows);
  std::printf("  %-34s n=%3zu  median %5.1f%%  p90 %5.1f%%  max %6.1f%%  within10 %5.1f%%  "
              "signed median %+5.1f%%\n",
              name.c_str(), s.n, 100 * s.median, 100 * s.p90, 100 * s.max, 100 * s.within10,
              100 * s.signed_median);
}

// The Megatron Bridge memory-tuning guide's table (NVIDIA/skills
// skills/nemo-mbridge-perf-memory-tuning/SKILL.md:181-200): Llama3-70B SFT, 32x H100, FP8 current
// scaling, MBS1 GBS32 seq 4096, decimal GB from Bridge's memory report.
// Before Megatron Bridge PR #3169 (2026-04-09, "report memory on 2nd
// iteration") that report ran once, after iteration 1, and printed
// torch.cuda.memory_stats() peaks on every DP-rank-0 process; the document
// quotes rank 0 (pp rank 0). Adam's moments do not exist during iteration 1's
// forward/backward, so the comparable figure is the first-iteration peak of
// pp rank 0.
void document_rows(const std::string& root)
{
  lg::config::LoadOptions options;
  options.preset_dirs = {root + "/presets"};
  lg::config::JobSpec base;
  try {
    base = lg::config::load_job_file(root + "/examples/llama3-70b-sft-h100.toml", options);
  } catch (const std::exception& e) {
    std::printf("\nmemory-tuning guide rows: cannot load the example: %s\n", e.what());
    return;
  }
  struct DocRow
  {
    const char* name;
    int tp;
    int pp;
    int vpp;
    double measured_gb;
  };
  const DocRow rows[] = {{"TP4 PP4 VPP5 DP2 (baseline)", 4, 4, 5, 58.8},
                         {"TP4 PP8 VPP5 DP1", 4, 8, 5, 53.2},
                         {"TP8 PP4 VPP5 DP1", 8, 4, 5, 50.2},
                         {"TP4 PP4 VPP10 DP2", 4, 4, 10, 60.2}};
  std::printf("\nmemory-tuning guide rows (examples/llama3-70b-sft-h100.toml, first-iteration "
              "allocated peak of pp rank 0, decimal GB):\n");
  lg::estimate::Options o;
  double baseline = 0;
  for (const auto& r : rows) {
    auto spec = base;
    spec.parallelism.tp = r.tp;
    spec.parallelism.pp = r.pp;
    spec.parallelism.vpp = r.vpp;
    const auto est = lg::estimate::estimate(spec, o);
    const auto& s = est.stages.front();
    const double gb = s.first_iteration_allocated_bytes / 1e9;
    double most = 0;
    for (const auto& st : est.stages) {
      most = std::max(most, st.allocated_peak_bytes);
    }
    if (baseline == 0) {
      baseline = gb;
    }
    std::printf("  %-30s pred %6.1f GB  meas %5.1f GB  err %+5.1f%%   (steady peak, most "
                "loaded stage: %5.1f GB)\n",
                r.name, gb, r.measured_gb, 100 * (gb - r.measured_gb) / r.measured_gb, most / 1e9);
  }
}

// Write the band table: per feature mix and per group, the p90 of |error|.
void write_bands(const std::string& path, const std::vector<Row>& all)
{
  std::map<std::string, std::vector<const Row*>> mixes;
  std::map<std::string, std::vector<const Row*>> groups;
  std::vector<const Row*> every;
  for (const auto& r : all) {
    if (r.verdict == "unknown") {
      continue;  // not modelled: no band claims for it
    }
    mixes[r.mix].push_back(&r);
    for (const auto& g : r.groups) {
      groups["group:" + g].push_back(&r);
    }
    every.push_back(&r);
  }
  std::ofstream out(path);
  out << "// Generated by bench/estimator/update-error-bands from the development\n"
         "// measurements; do not edit. {feature mix or group, records, p90 |error|}\n";
  const auto line = [&](const std::string& key, const std::vector<const Row*>& rows) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "{\"%s\", %zu, %.4f},\n", key.c_str(), rows.size(),
                  stats_of(rows).p90);
    out << buf;
  };
  for (const auto& [k, rows] : mixes) {
    line(k, rows);
  }
  for (const auto& [k, rows] : groups) {
    line(k, rows);
  }
  line("all", every);
  std::printf("\nwrote %s\n", path.c_str());
}

} // namespace

int main(int argc, char** argv)
{
  const char* env_path = std::getenv("LG_MEMORY_MEASUREMENTS");
  std::string data = argc > 1 && argv[1][0] != '-' ? argv[1] : (env_path ? env_path : "");
  if (data.empty()) {
    std::fprintf(stderr,
                 "bench_estimator: no measurement data: give the path of "
                 "memory_measurements_*.json as the first argument or in "
                 "LG_MEMORY_MEASUREMENTS (the data is not part of the repository)\n");
    return 2;
  }
  std::ifstream in(data);
  if (!in) {
    std::fprintf(stderr, "bench_estimator: cannot open %s\n", data.c_str());
    return 2;
  }
  bool all_rows = false;
  std::string bands;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    all_rows = all_rows || a == "--all";
    if (a == "--bands" && i + 1 < argc) {
      bands = argv[++i];
    }
    if (a == "--show" && i + 1 < argc) {
      g_show = argv[++i];
    }
  }
  const auto records = nlohmann::json::parse(in);
  std::map<std::string, std::vector<const Row*>> tiers;
  std::map<std::string, std::vector<const Row*>> groups;
  std::map<std::string, int> skipped;
  std::vector<Row> all;
  all.reserve(records.size());
  for (const auto& record : records) {
    std::string why;
    if (auto row = predict(record, why)) {
      all.push_back(*row);
    } else {
      ++skipped[record.value("tier", "?") + ": " + why];
    }
  }
  std::vector<const Row*> every;
  for (const auto& r : all) {
    tiers[r.tier].push_back(&r);
    for (const auto& g : r.groups) {
      groups[g].push_back(&r);
    }
    if (r.groups.empty()) {
      groups["(plain dense)"].push_back(&r);
    }
    every.push_back(&r);
  }
  std::printf("memory estimator vs measured allocated peak (|pred-meas|/meas)\n\nper tier:\n");
  for (const auto& [tier, rows] : tiers) {
    print_stats(tier, rows);
  }
  print_stats("all", every);
  // The records the estimator gives a number for (verdict not unknown: a
  // feature it does not model, such as a distillation teacher).
  std::vector<const Row*> judged;
  std::copy_if(every.begin(), every.end(), std::back_inserter(judged),
               [](const Row* r) { return r->verdict != "unknown"; });
  print_stats("all judged (verdict not unknown)", judged);
  // How often the shipped band covers the measured value (in-sample: the band
  // table comes from these records): two-sided, and the upper edge alone (what
  // a `fits` verdict relies on: measured <= predicted x (1 + band)).
  const auto covered = [&](bool upper_only) {
    return std::count_if(judged.begin(), judged.end(), [&](const Row* r) {
      return upper_only ? r->measured <= r->predicted * (1 + r->band) : std::fabs(r->error) <= r->band;
    });
  };
  std::printf("  band coverage (judged): |error| <= band %ld/%zu, measured <= upper edge %ld/%zu\n",
              static_cast<long>(covered(false)), judged.size(), static_cast<long>(covered(true)), judged.size());
  std::printf("\nper feature group (a record counts in each of its groups):\n");
  for (const auto& [group, rows] : groups) {
    print_stats(group, rows);
  }
  std::map<std::string, int> verdicts;
  for (const auto& r : all) {
    ++verdicts[r.verdict];
  }
  std::printf("\nverdicts:");
  for (const auto& [v, n] : verdicts) {
    std::printf(" %s %d", v.c_str(), n);
  }
  std::printf("\n\nskipped:\n");
  for (const auto& [why, n] : skipped) {
    std::printf("  %3d  %s\n", n, why.c_str());
  }
  std::vector<const Row*> sorted = every;
  std::sort(sorted.begin(), sorted.end(),
            [](const Row* a, const Row* b) { return std::fabs(a->error) > std::fabs(b->error); });
  std::printf("\nworst 10:\n");
  for (std::size_t i = 0; i < std::min<std::size_t>(10, sorted.size()); ++i) {
    const auto& r = *sorted[i];
    std::printf("  %+6.1f%%  pred %7.2f GiB  meas %7.2f GiB  %s (%c, %s)\n", 100 * r.error,
                r.predicted, r.measured, r.id.c_str(), r.tier.empty() ? '?' : r.tier[0],
                r.mix.c_str());
  }
  if (all_rows) {
    std::printf("\nall:\n");
    for (const Row* r : sorted) {
      std::printf("  %+6.1f%%  pred %7.2f meas %7.2f  steady pred %6.2f meas %6.2f  %s\n",
                  100 * r->error, r->predicted, r->measured, r->steady_predicted,
                  r->steady_measured, r->id.c_str());
    }
  }
  document_rows(LG_SOURCE_DIR);
  if (!bands.empty()) {
    write_bands(bands, all);
  }
  return 0;
}
