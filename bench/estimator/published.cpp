// bench_published: the configurations that really ran. Every layout of the
// Megatron Bridge performance tables (bench/tune/bridge_performance.json,
// parsed from NVIDIA-NeMo/Megatron-Bridge docs/performance-summary*.md; its
// "source" names the commit) is judged by the preflight stage under the
// Bridge performance recipes' common settings, and the bench counts memory
// verdicts and error-level findings. A run that published a throughput did
// not run out of memory: none of them may be `oom` or get an error.
// Usage: bench_published <bridge_performance.json> <presets dir>
#include "preflight/judge.hpp"
#include "rows.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

namespace {

// Rows whose published layout contradicts the table itself (its GA column)
// or every workload config of the release, checked in NVIDIA-NeMo/Megatron-Bridge
// (commits named per entry). Either the config's value replaces the row's
// (`mbs`, `pp`, `vpp` > 0, `training` lines appended), or the row is not judged
// (`judge` false) because no consistent layout can be read from it.
struct Correction
{
  const char* release;
  const char* model;
  const char* system;
  const char* precision;
  int row_pp;  // the PP the table prints, to match the row
  int mbs = 0;
  int pp = 0;
  int vpp = 0;
  const char* training = "";
  bool judge = true;
  const char* why = "";
};

const Correction k_corrections[] = {
  // 25.09 (v0.1.0rc3 bf71eba07bae8d36f08b796c106d1197d46ad541)
  // scripts/performance/configs/llama3/llama3_70b_llm_pretrain.yaml:147-148:
  // GB200 fp8_mx is mbs 1; the row's GA 16 = 128 / (DP 8 x mbs 1) agrees.
  {"25.09", "llama3-70b", "gb200", "mxfp8", 4, 1, 0, 0, "", true,
   "the MXFP8 variant shares the MBS column; the 25.09 config and the GA column say mbs 1"},
  // Same release, configs/llama31/llama31_405b_llm_pretrain.yaml:117-123:
  // GB200 fp8_cs TP2 Megatron FSDP offloads the activations of 95 layers.
  {"25.09", "llama3.1-405b", "gb200", "fp8_cs", 1, 0, 0, 0, "cpu_offloading_layers = 95\n", true,
   "the 25.09 config offloads the activations of 95 of 126 layers"},
  // 25.11 (v0.2.0 717c62de401bce92e913fd1c66c03f4e17bff265)
  // scripts/performance/configs/gpt_oss/workload_base_configs.py:27,58-61: H100 is
  // PP4 at the base mbs 1; the row's MBS 4 and GA 2 are the B200 row's (PP4 on
  // 64 GPUs at MBS 4 would be GA 8).
  {"25.11", "gpt-oss-120b", "h100-80gb", "bf16", 4, 1, 0, 0, "", true,
   "the 25.11 H100 config is mbs 1; MBS 4 with GA 2 is impossible at PP4"},
  // 26.02.01 (v0.3.1 9c9dd848966322fc3ed7706747ec13219ef49dda)
  // scripts/performance/configs/llama/llama3_workload_base_configs.py:219-231 (and
  // every release before and after): GB300 MXFP8 and NVFP4 are PP4 VPP5 at the
  // base mbs 1; the 26.02 table prints that layout. At TP1 PP1 without FSDP a
  // 70B model's bf16 weights and fp32 gradients alone exceed 288 GB.
  {"26.02.01", "llama3-70b", "gb300", "nvfp4", 1, 1, 4, 5, "", true,
   "every workload config of GB300 NVFP4 is PP4 VPP5 mbs 1; the row's TP1 PP1 mbs 2 cannot hold the model"},
  {"26.02.01", "llama3-70b", "gb300", "mxfp8", 4, 1, 4, 5, "", true,
   "every workload config of GB300 MXFP8 is PP4 VPP5 mbs 1"},
  // 25.09 DeepSeek-V3 GB200, FP8-MX variant PP8 VP2 with the shared EP 64: 256
  // GPUs at PP8 leave 32 ranks per stage, fewer than 64 experts' ranks; the
  // 25.09 config (configs/deepseek/deepseek_v3_llm_pretrain.yaml, gb200) has
  // one layout (PP4, EP64) for every precision.
  {"25.09", "deepseek-v3", "gb200", "mxfp8", 8, 0, 0, 0, "", false,
   "PP8 with EP64 on 256 GPUs has no consistent expert layout; the release config has PP4 only"},
};

const Correction* correction_of(const lg::bench::Row& row)
{
  for (const auto& c : k_corrections) {
    if (row.release == c.release && row.model == c.model && row.system == c.system &&
        row.precision == c.precision && row.pp == c.row_pp) {
      return &c;
    }
  }
  return nullptr;
}

} // namespace

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
  lg::config::LoadOptions options;
  options.preset_dirs = {argv[2]};
  std::map<std::string, int> verdicts;
  std::map<std::string, int> errors;
  std::map<std::string, int> skipped;
  std::vector<std::string> bad;
  std::vector<std::string> corrected;
  int rows = 0;
  int with_error = 0;
  for (auto row : lg::bench::read_rows(doc)) {
    const Correction* fix = correction_of(row);
    std::string extra;
    if (fix != nullptr) {
      corrected.push_back(fmt::format("  {} {} {} {} tp{} pp{} vpp{} mbs{}: {}{}", row.release, row.model,
                                      row.system, row.precision, row.tp, row.pp, row.vpp, row.mbs,
                                      fix->judge ? "" : "not judged: ", fix->why));
      if (!fix->judge) {
        continue;
      }
      row.mbs = fix->mbs > 0 ? fix->mbs : row.mbs;
      row.pp = fix->pp > 0 ? fix->pp : row.pp;
      row.vpp = fix->vpp > 0 ? fix->vpp : row.vpp;
      extra = fix->training;
    }
    lg::config::JobSpec spec;
    try {
      std::string text = lg::bench::job_text(row);
      if (!extra.empty()) {
        const auto at = text.find("[training]\n");
        text.insert(at == std::string::npos ? text.size() : at + 11, extra);
      }
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
