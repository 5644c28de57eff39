// bench_tune: the throughput model against the published Megatron Bridge
// layouts (bridge_performance.json). Calibration set: releases 25.09 and
// 25.11; every other release is held out.
// Usage: bench_tune <bridge_performance.json> <presets dir> [--calibrate] [--rows]
#include "config/loader.hpp"
#include "rows.hpp"
#include "throughput/systems.hpp"
#include "throughput/throughput.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

namespace {

using lg::bench::Row;

bool calibration_release(const std::string& release)
{
  return release == "25.09" || release == "25.11";
}

double median(std::vector<double> v)
{
  if (v.empty()) {
    return 0;
  }
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string family(const std::string& precision)
{
  if (precision == "bf16") {
    return "bf16";
  }
  return precision == "nvfp4" ? "fp4" : "fp8";
}

struct Predicted
{
  Row row;
  lg::config::JobSpec spec;
  double error = 0;  // predicted / measured - 1 (tokens/s/GPU)
  lg::throughput::Throughput t;
};

// Bisection for the value of one rate that makes the median log error of
// `members` zero (predictions fall as the efficiency rises).
template <typename Set>
double fit(const std::vector<const Predicted*>& members, Set set)
{
  double lo = 0.02;
  double hi = 2.0;
  for (int it = 0; it < 40; ++it) {
    const double mid = (lo + hi) / 2;
    std::vector<double> errors;
    for (const Predicted* p : members) {
      auto rates = lg::throughput::system_rates(p->spec.cluster.gpu_info);
      set(rates, mid);
      const auto t = lg::throughput::predict(p->spec, rates);
      errors.push_back(std::log(t.tokens_per_sec_per_gpu / p->row.tokens));
    }
    (median(errors) > 0 ? hi : lo) = mid;
  }
  return (lo + hi) / 2;
}

// Per system: the FP8 GEMM efficiency on the dense rows, then the grouped-GEMM
// efficiency of routed experts on the MoE rows (with that FP8 efficiency).
void calibrate(const std::vector<Predicted>& rows)
{
  std::map<std::string, std::vector<const Predicted*>> dense;
  std::map<std::string, std::vector<const Predicted*>> moe;
  for (const auto& p : rows) {
    if (calibration_release(p.row.release)) {
      (p.spec.model.moe ? moe : dense)[p.row.system].push_back(&p);
    }
  }
  fmt::print("calibration (releases 25.09, 25.11), per system:\n");
  std::set<std::string> systems;
  for (const auto& p : rows) {
    systems.insert(p.row.system);
  }
  for (const std::string& system : systems) {
    double fp8 = -1;
    if (!dense[system].empty()) {
      std::vector<const Predicted*> fp8_rows;
      for (const Predicted* p : dense[system]) {
        if (family(p->row.precision) == "fp8") {
          fp8_rows.push_back(p);
        }
      }
      if (!fp8_rows.empty()) {
        fp8 = fit(fp8_rows, [](lg::throughput::SystemRates& r, double v) { r.gemm_efficiency_fp8 = v; });
      }
    }
    double grouped = -1;
    if (!moe[system].empty()) {
      grouped = fit(moe[system], [fp8](lg::throughput::SystemRates& r, double v) {
        if (fp8 > 0) {
          r.gemm_efficiency_fp8 = fp8;
        }
        r.grouped_gemm_efficiency = v;
      });
    }
    fmt::print("  {:<10} dense fp8 rows {:>2}: gemm_efficiency_fp8 {:.3f}   moe rows {:>2}: "
               "grouped_gemm_efficiency {:.3f}\n",
               system, dense[system].size(), fp8, moe[system].size(), grouped);
  }
}

// The Megatron Bridge memory-tuning guide's measured table (Llama3 70B SFT,
// 32 x H100, FP8-CS, seq 4096, GBS 32, MBS 1): the baseline TP4 PP4 VPP5 DP2
// and its variants, predicted relative changes against measured ones.
void guide(const lg::config::LoadOptions& options)
{
  auto spec_of = [&](int tp, int pp, const char* recompute) {
    Row row;
    row.release = "guide";
    row.task = "sft";
    row.model = "llama3-70b";
    row.system = "h100-80gb";
    row.precision = "fp8_cs";
    row.gpus = 32;
    row.gbs = 32;
    row.mbs = 1;
    row.seq = 4096;
    row.tp = tp;
    row.pp = pp;
    row.vpp = 5;
    std::string text = lg::bench::job_text(row);
    text.insert(text.find("[cluster]"), fmt::format("recompute = {}\n", recompute));
    return lg::config::load_job_text(text, "guide.toml", options);
  };
  const char* core = "{ granularity = \"selective\", modules = [\"core_attn\"] }";
  const char* mlp = "{ granularity = \"selective\", modules = [\"core_attn\", \"mlp\"] }";
  const auto base = lg::throughput::predict(spec_of(4, 4, core));
  struct Case
  {
    const char* name;
    lg::config::JobSpec spec;
    double measured;  // relative change
  };
  const Case cases[] = {{"TP4 -> TP8 (DP 2 -> 1)", spec_of(8, 4, core), -0.284},
                        {"PP4 -> PP8 (DP 2 -> 1)", spec_of(4, 8, core), -0.059},
                        {"+ selective mlp recompute", spec_of(4, 4, mlp), -0.16}};
  fmt::print("memory-tuning guide (Llama3 70B SFT, 32 x H100): baseline predicted {:.0f} TFLOP/s/GPU "
             "(measured ~704)\n",
             base.tflops_per_gpu);
  for (const Case& c : cases) {
    const auto t = lg::throughput::predict(c.spec);
    fmt::print("  {:<28} predicted {:+6.1f}%  measured {:+6.1f}%\n", c.name,
               100 * (t.tflops_per_gpu / base.tflops_per_gpu - 1), 100 * c.measured);
  }
}

} // namespace

int main(int argc, char** argv)
{
  if (argc < 3) {
    fmt::print(stderr, "usage: bench_tune <bridge_performance.json> <presets dir> [--calibrate] [--rows]\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    fmt::print(stderr, "bench_tune: cannot read {}\n", argv[1]);
    return 2;
  }
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::set<std::string> flags(argv + 3, argv + argc);
  lg::config::LoadOptions options;
  options.preset_dirs = {argv[2]};
  const auto& source = doc.at("source");
  fmt::print("source: {} {} @ {}\n", source.at("project").get<std::string>(),
             source.at("files").dump(), source.at("commit").get<std::string>());
  std::vector<Predicted> rows;
  for (const Row& row : lg::bench::read_rows(doc)) {
    Predicted p{row, lg::bench::row_spec(row, options), 0, {}};
    p.t = lg::throughput::predict(p.spec);
    p.error = p.t.tokens_per_sec_per_gpu / row.tokens - 1;
    rows.push_back(std::move(p));
  }
  guide(options);
  if (flags.count("--calibrate") != 0) {
    calibrate(rows);
    return 0;
  }
  std::map<std::string, std::vector<double>> by_split;
  for (const auto& p : rows) {
    const std::string split = calibration_release(p.row.release) ? "calibration" : "held-out";
    by_split[split].push_back(std::abs(p.error));
    by_split[split + " " + p.row.system].push_back(std::abs(p.error));
    by_split[split + (p.spec.model.moe ? " moe" : " dense")].push_back(std::abs(p.error));
    if (flags.count("--rows") != 0) {
      fmt::print("{:<9} {:<8} {:<16} {:<9} {:<7} {:>4} tp{} pp{} cp{} vp{} ep{} mbs{} fsdp{}  meas {:>6.0f}  pred {:>6.0f}  {:+.1f}%  main {}\n",
                 p.row.release, p.row.task, p.row.model, p.row.system, p.row.precision, p.row.gpus,
                 p.row.tp, p.row.pp, p.row.cp, p.row.vpp, p.row.ep, p.row.mbs, p.row.fsdp, p.row.tokens,
                 p.t.tokens_per_sec_per_gpu, 100 * p.error, p.t.main_cost);
    }
  }
  fmt::print("median |error| of predicted tokens/s/GPU on published layouts:\n");
  for (const auto& [split, errors] : by_split) {
    fmt::print("  {:<24} n={:>3}  median {:5.1f}%\n", split, errors.size(), 100 * median(errors));
  }
  return 0;
}
