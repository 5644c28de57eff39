#include "recipes.hpp"

#include <fmt/core.h>


namespace lg::bench {

namespace {

// Megatron-Bridge at commit 067f987df03b8355b03192d88d70f1709fedf51a (the
// commit bridge_performance.json was parsed from). Paths are under
// src/megatron/bridge/.

// DeepSeek-V3 (61 decoder layers, 1 MTP layer): the performance recipes set
// pipeline_model_parallel_layout through set_deepseek_v3_pipeline_model_parallel_layout,
// either explicitly or from the map keyed by (pp, vpp) in
// recipes/deepseek/h100/deepseek_v3.py:50-60 (_get_deepseek_v3_pipeline_layout).
// The map's layouts depend only on the number of virtual stages (pp x vpp):
// (4,4), (8,2), (16,1) give one 16-stage layout, (4,2), (8,1) one 8-stage
// layout. Explicit: perf_recipes/deepseek/gb300/deepseek_v3.py:54,104,154,209
// (pp 2 vpp 8, 16 stages, same string), perf_recipes/deepseek/h100/deepseek_v3.py:48,97,212
// (pp 8 vpp 4, 32 stages). The MTP layer ('m') is dropped for rows run without MTP.
struct DeepSeekLayout
{
  int stages;
  const char* layout;
};

constexpr DeepSeekLayout k_deepseek_v3_layouts[] = {
  {8, "Et*8|(t*8|)*6t*5mL"},
  {16, "Et*4|(t*4|)*14tmL"},
  {32, "Et|(tt|)*30mL"},
};

std::string without_mtp(std::string layout)
{
  std::string out;
  for (char c : layout) {
    if (c != 'm') {
      out += c;
    }
  }
  return out;
}

std::string deepseek_v3_layout(const Row& row)
{
  const int stages = row.pp * (row.vpp > 1 ? row.vpp : 1);
  for (const auto& l : k_deepseek_v3_layouts) {
    if (l.stages == stages) {
      return row.without_mtp ? without_mtp(l.layout) : std::string(l.layout);
    }
  }
  return {};
}

// Llama 3 70B pretraining on GB200/GB300 at TP1 PP1 (the FSDP rows): Megatron
// FSDP with activation offloading of some layers (cpu_offloading_num_layers).
// perf_recipes/llama/gb200/llama3.py:219,229-231 (bf16, 20 layers),
// :272,282-284 (fp8cs, 40 layers); perf_recipes/llama/gb300/llama3.py:218,230-232
// (bf16, 30 layers), :274,284-286 (fp8cs, 20 layers).
struct Offload
{
  const char* system;
  const char* precision;
  int layers;
};

constexpr Offload k_llama3_70b_offload[] = {
  {"gb200", "bf16", 20},
  {"gb200", "fp8_cs", 40},
  {"gb300", "bf16", 30},
  {"gb300", "fp8_cs", 20},
};

// Selective recompute per model, GPU and precision. DeepSeek-V3: Megatron-Bridge
// v0.5.0 (fcbb6031103d0ca845c1a54d4fee55ecfcca17b6)
// scripts/performance/configs/deepseek/deepseek_workload_base_configs.py, the V1
// configs (recompute_modules at :53 GB300 fp8cs/nvfp4 via :67,:77, :65 GB300 bf16,
// :75 GB300 mxfp8, :89 GB200 fp8cs/nvfp4 via :97,:106, :95 GB200 bf16, :104 GB200
// mxfp8, :136 B300, :152 B200, :170 H100); granularity "selective" from
// perf_recipes/deepseek/common.py:35 at the table's commit. An empty list is no
// recompute. GPT-OSS 120B: v0.3.0 (21b02e0cfb2f8ff907e0d8baee0c5205876c6812)
// scripts/performance/configs/gpt_oss/gpt_oss_workload_base_configs.py:58 (GB200),
// :75 (B200), :79-83 (H100), the same at the table's commit in
// perf_recipes/gpt_oss/h100/gpt_oss.py:39-40,75-76 and b200/gpt_oss.py:39-40. The GB300 MXFP8 rows at micro batch 2 ran the earlier config
// (v0.4.0 0fbfe7d3e970fbd75c1281d71cee586ce1f3df5e, same file :45,:53,:68:
// FP8_MX = the GB300 V1 config, mbs 2, ["mla_up_proj"]); v0.5.0's :70,:75 is mbs 1.
struct Recompute
{
  const char* model;
  const char* system;
  const char* precision;  // "" = every precision
  const char* modules;    // TOML array body
  int mbs = 0;            // 0 = every micro batch size
};

constexpr Recompute k_recipe_recompute[] = {
  {"deepseek-v3", "gb300", "bf16", "\"moe_act\""},
  {"deepseek-v3", "gb300", "mxfp8", "", 1},
  {"deepseek-v3", "gb300", "", "\"mla_up_proj\""},
  {"deepseek-v3", "gb200", "bf16", "\"mla_up_proj\""},
  {"deepseek-v3", "gb200", "mxfp8", "\"mla_up_proj\""},
  {"deepseek-v3", "gb200", "", "\"mlp\""},
  {"deepseek-v3", "b300", "", "\"mla_up_proj\""},
  {"deepseek-v3", "b200", "", "\"mla_up_proj\""},
  {"deepseek-v3", "h100-80gb", "", "\"mla_up_proj\", \"mlp\""},
  {"gpt-oss-120b", "h100-80gb", "", "\"layernorm\", \"moe_act\""},
  {"gpt-oss-120b", "gb200", "", "\"layernorm\", \"moe_act\""},
  {"gpt-oss-120b", "b200", "", "\"layernorm\", \"moe_act\""},
};

// The flex token dispatcher (DeepEP / HybridEP) where the recipe with the row's layout sets it
// and its EP group crosses NVLink domains (inside one domain it changes no modelled cost):
// DeepSeek-V3 on B200 at PP 8 VPP 2 EP 32, DeepEP, perf_recipes/deepseek/b200/deepseek_v3.py:131-134,
// 141,147 (fp8mx; nvfp4 :183-190), with overlap_moe_expert_parallel_comm; Qwen3-30B-A3B on
// 16 H100 at EP 16, HybridEP, perf_recipes/qwen/h100/qwen3_moe.py:85,90-91; DeepSeek-V3 on 1024 H100 at
// TP 2 PP 8 VPP 4 EP 64 (the 25.09 rows), DeepEP with the 1F1B all-to-all overlap in the
// release's own scripts: v0.1.0rc4 (6725f7049504c3bcf9a65c5aee40aa118bc7a869)
// scripts/performance/run_script.py:56,62,73,82-83 and v0.2.0
// (7af9601c9da746d21481194356295bfe23df3737) scripts/performance/configs/deepseek/
// workload_base_configs.py:77-88.
struct Dispatcher
{
  const char* model;
  const char* system;
  int pp, vpp, ep;
  bool overlap_ep;
  const char* backend;  // moe_flex_dispatcher_backend
};

constexpr Dispatcher k_flex_dispatcher[] = {
  {"deepseek-v3", "b200", 8, 2, 32, true, "deepep"},
  {"qwen3-30b-a3b", "h100-80gb", 1, 0, 16, false, "hybridep"},
  {"deepseek-v3", "h100-80gb", 8, 4, 64, true, "deepep"},
};

std::string recipe_recompute(const Row& row)
{
  for (const auto& r : k_recipe_recompute) {
    if (row.model == r.model && row.system == r.system && (*r.precision == '\0' || row.precision == r.precision)
        && (r.mbs == 0 || r.mbs == row.mbs)) {
      if (*r.modules == '\0') {
        return {};
      }
      return fmt::format("recompute = {{ granularity = \"selective\", modules = [{}] }}\n", r.modules);
    }
  }
  return {};
}

// What the Bridge performance runs of these models set beside the table's
// columns (paths under src/megatron/bridge/):
// - perf_recipes/_common.py:31,70 (_benchmark_common, cross_entropy_impl="te"):
//   cross_entropy_fusion_impl = "te", with cross_entropy_loss_fusion = True
//   (models/gpt_provider.py:205); only the DeepSeek-V4, GLM-5 and Nemotron-H
//   recipes pass "native", none of them a model of this table.
// - perf_recipes/_common.py:99-121 (_perf_precision) -> training/mixed_precision.py:
//   bf16_with_fp8_current_scaling_mixed (:302) and bf16_with_mxfp8_mixed (:264) set
//   fp8_param_gather = True; the blockwise (subchannel, :384) and NVFP4 (:415)
//   recipes set it False.
std::string recipe_precision_lines(const Row& row)
{
  std::string out = "cross_entropy_fusion = \"te\"\n";
  if (row.precision == "fp8_cs" || row.precision == "mxfp8") {
    out += "fp8_param_gather = true\n";
  }
  return out;
}

} // namespace

RecipeLines recipe_lines(const Row& row)
{
  RecipeLines out;
  out.training += recipe_precision_lines(row);
  if (row.model == "deepseek-v3" && row.pp > 1) {
    const auto layout = deepseek_v3_layout(row);
    if (!layout.empty()) {
      out.parallelism += fmt::format("pipeline_layout = \"{}\"\n", layout);
    }
  }
  out.training += recipe_recompute(row);
  for (const auto& d : k_flex_dispatcher) {
    if (row.model == d.model && row.system == d.system && row.pp == d.pp && row.vpp == d.vpp && row.ep == d.ep) {
      out.moe += fmt::format("token_dispatcher = \"flex\"\nflex_backend = \"{}\"\n", d.backend);
      out.dispatcher_training += d.overlap_ep ? "overlap_moe_expert_parallel_comm = true\n" : "";
    }
  }
  // Llama 3.1 405B (126 layers) and Qwen3-235B-A22B (94 layers) count the
  // embedding and the loss as one layer each in the pipeline split: the
  // performance recipes start from llama31_405b_pretrain_config =
  // recipes/llama/h100/llama3.py:1227-1228 and qwen3_235b_a22b_pretrain_config =
  // recipes/qwen/h100/qwen3_moe.py:261-262.
  if ((row.model == "llama3.1-405b" || row.model == "qwen3-235b-a22b") && row.pp > 1) {
    out.parallelism += "account_for_embedding_in_pipeline_split = true\n"
                       "account_for_loss_in_pipeline_split = true\n";
  }
  if (row.model == "llama3-70b" && row.task == "pretrain" && row.pp == 1 && row.fsdp > 0) {
    for (const auto& o : k_llama3_70b_offload) {
      if (row.system == o.system && row.precision == o.precision) {
        out.training += fmt::format("cpu_offloading_layers = {}\n", o.layers);
      }
    }
  }
  return out;
}

} // namespace lg::bench
