#include "throughput/coverage.hpp"

namespace lg::throughput {

std::vector<std::string> coverage_caveats(const config::JobSpec& spec, const SystemRates& rates)
{
  std::vector<std::string> out;
  const auto& gpu = spec.cluster.gpu_info;
  const config::Precision precision = spec.training.precision;
  const bool moe = spec.model.moe.has_value();
  if (!rates.known) {
    out.push_back("no rates for GPU '" + spec.cluster.gpu + "': the " + config::to_string(gpu.generation)
                  + " reference GPU's rates are used");
  } else if (gpu.name == "b300") {
    out.push_back("b300 GEMM efficiencies are b200's (no B300 row in the calibration releases; the B300 rows "
                  "published since are 28% off the prediction in median)");
  } else if (gpu.name == "h200-141gb") {
    out.push_back("h200 GEMM efficiencies are h100's (no H200 row in the calibration releases)");
  } else if (gpu.generation == config::GpuGeneration::ampere) {
    out.push_back("A100 efficiencies are defaults (no A100 row in the calibration releases)");
  }
  if (config::is_fp4(precision)) {
    // bench/tune: the NVFP4 rows of Megatron Bridge 26.02-26.08 (dense) run
    // 22% below the prediction in median.
    out.push_back("FP4 GEMMs are taken at the FP8 fraction of the FP4 peak (no FP4 row in the calibration "
                  "releases); Megatron Bridge's published NVFP4 rows ran ~20% slower than so predicted");
  } else if ((precision == config::Precision::bf16 || precision == config::Precision::fp16) && !moe) {
    out.push_back("16-bit GEMM efficiency is not calibrated (0.70 of the peak assumed: no dense BF16 row in "
                  "the calibration releases)");
  }
  if (moe && precision == config::Precision::mxfp8 && gpu.generation == config::GpuGeneration::blackwell) {
    // bench/tune: 74 held-out MXFP8 MoE rows, signed median -24%; the
    // recipes: Megatron-Bridge perf_recipes/{deepseek,qwen,gpt_oss}/common.py.
    out.push_back("Megatron Bridge's 2026 MXFP8 MoE kernels (HybridEP, full-iteration CUDA graphs, Transformer "
                  "Engine's op fuser) are not modelled: its published MXFP8 MoE rows ran ~25% faster than "
                  "predicted");
  }
  return out;
}

}  // namespace lg::throughput
