// bench_published: the configurations that really ran. Every layout of the
// Megatron Bridge performance tables (bench/tune/bridge_performance.json,
// parsed from NVIDIA-NeMo/Megatron-Bridge docs/performance-summary*.md; its
// "source" names the commit) is judged by the preflight stage under the
// Bridge performance recipes' common settings, and the bench counts memory
// verdicts and error-level findings. A run that published a throughput did
// not run out of memory: none of them may be `oom` or get an error.
// Usage: bench_published <bridge_performance.json> <presets dir> [--memory]
//        (--memory: every row judged borderline with its peak, band, capacity and
//        the components of its most loaded stage, in GiB)
#include "preflight/judge.hpp"
#include "rows.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>

namespace {

constexpr double k_gib = 1024.0 * 1024 * 1024;

// One borderline row: where its peak sits against the capacity and what the
// most loaded stage holds.
void print_memory(const lg::bench::Row& row, const lg::estimate::Estimate& e)
{
  const bool calibration = row.release == "25.09" || row.release == "25.11";
  std::string line = fmt::format(
    "borderline {} {} {} {} {} {} {} GPUs tp{} pp{} vpp{} cp{} ep{} mbs{} fsdp{}: peak {:.1f} + band {:.1f} "
    "({:.1f}%, {}) = {:.1f}% of {:.1f} GiB (pp rank {});",
    calibration ? "calibration" : "held-out", row.release, row.task, row.model, row.system, row.precision, row.gpus,
    row.tp, row.pp, row.vpp, row.cp, row.ep, row.mbs, row.fsdp, e.peak_bytes / k_gib, e.band_bytes / k_gib,
    100 * e.band_bytes / std::max(1.0, e.peak_bytes), e.band_group,
    100 * (e.peak_bytes + e.band_bytes) / std::max(1.0, e.capacity_bytes), e.capacity_bytes / k_gib,
    e.most_loaded_pp_rank);
  for (const auto& stage : e.stages) {
    if (stage.pp_rank != e.most_loaded_pp_rank) {
      continue;
    }
    for (const auto& [name, bytes] : stage.components) {
      line += fmt::format(" {} {:.2f}", name, bytes / k_gib);
    }
  }
  std::printf("%s\n", line.c_str());
}

}  // namespace

int main(int argc, char** argv)
{
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_published <bridge_performance.json> <presets dir>\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "bench_published: cannot open %s\n", argv[1]);
    return 2;
  }
  const auto doc = nlohmann::json::parse(in);
  const bool memory = argc > 3 && std::string(argv[3]) == "--memory";
  lg::config::LoadOptions options;
  options.preset_dirs = {argv[2]};
  std::map<std::string, int> verdicts;
  std::map<std::string, int> errors;
  std::map<std::string, int> skipped;
  std::vector<std::string> bad;
  std::vector<std::string> corrected;
  int rows = 0;
  int with_error = 0;
  for (const auto& row : lg::bench::read_rows(doc)) {
    if (!row.corrected.empty()) {
      corrected.push_back("  " + row.corrected);
    }
    if (!row.judged) {
      continue;
    }
    lg::config::JobSpec spec;
    try {
      const std::string text = lg::bench::job_text(row, lg::bench::dispatcher_judged(row, options));
      spec = lg::config::load_job_text(text, "bench.toml", options);
    } catch (const std::exception& e) {
      ++skipped[e.what()];
      continue;
    }
    lg::preflight::Options o;
    o.with_what_if = false;
    const auto judged = lg::preflight::judge(spec, o);
    ++rows;
    const std::string verdict = lg::estimate::to_string(judged.estimate.verdict);
    ++verdicts[verdict];
    bool any = false;
    for (const auto& d : judged.errors()) {
      ++errors[d.rule];
      any = true;
    }
    with_error += any ? 1 : 0;
    if (memory && verdict == "borderline") {
      print_memory(row, judged.estimate);
    }
    if (verdict == "oom" || any) {
      char line[400];
      std::snprintf(line, sizeof line, "  %-9s %s %s %s %d GPUs tp%d pp%d vpp%d cp%d ep%d mbs%d gbs%d: peak %.1f GiB%s",
                    verdict.c_str(), row.release.c_str(), row.model.c_str(), row.system.c_str(),
                    row.gpus, row.tp, row.pp, row.vpp, row.cp, row.ep, row.mbs, row.gbs,
                    judged.estimate.peak_bytes / (1024.0 * 1024 * 1024),
                    any ? (" [" + judged.errors().front().rule + "]").c_str() : "");
      bad.emplace_back(line);
    }
  }
  const auto src = doc.value("source", nlohmann::json::object());
  std::printf("published configurations (%s %s at %s): %d rows judged\n",
              src.value("project", "?").c_str(), "docs/performance-summary*.md",
              src.value("commit", "?").c_str(), rows);
  std::printf("verdicts:");
  for (const auto& [v, n] : verdicts) {
    std::printf(" %s %d", v.c_str(), n);
  }
  std::printf("\nrows with an error finding: %d\n", with_error);
  for (const auto& [rule, n] : errors) {
    std::printf("  %4d  %s\n", n, rule.c_str());
  }
  for (const auto& [why, n] : skipped) {
    std::printf("skipped %d: %s\n", n, why.c_str());
  }
  std::printf("rows corrected from their release's config (%zu):\n", corrected.size());
  for (const auto& line : corrected) {
    std::printf("%s\n", line.c_str());
  }
  std::printf("oom or error rows (first 25):\n");
  for (std::size_t i = 0; i < bad.size() && i < 25; ++i) {
    std::printf("%s\n", bad[i].c_str());
  }
  return 0;
}
