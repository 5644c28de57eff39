// Published rows that contradict their own table or every workload config of
// their release (bench/tune/rows.hpp: corrections), shared by bench_tune and
// bench_published so both judge the same layout.
#include "rows.hpp"

#include <fmt/format.h>

namespace lg::bench {

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

const Correction* correction_of(const Row& row)
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

void apply_correction(Row& row)
{
  const Correction* fix = correction_of(row);
  if (fix == nullptr) {
    return;
  }
  row.corrected = fmt::format("{} {} {} {} tp{} pp{} vpp{} mbs{}: {}{}", row.release, row.model, row.system,
                              row.precision, row.tp, row.pp, row.vpp, row.mbs, fix->judge ? "" : "not judged: ",
                              fix->why);
  row.judged = fix->judge;
  row.mbs = fix->mbs > 0 ? fix->mbs : row.mbs;
  row.pp = fix->pp > 0 ? fix->pp : row.pp;
  row.vpp = fix->vpp > 0 ? fix->vpp : row.vpp;
  row.extra_training = fix->training;
}

} // namespace lg::bench
