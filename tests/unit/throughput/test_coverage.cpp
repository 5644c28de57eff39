// What the throughput calibration does not cover (throughput/coverage.hpp):
// the calibration releases are Megatron Bridge 25.09 and 25.11
// (docs/performance-summary-archive.md), which have no B300, H200, A100 or
// FP4 row and no dense 16-bit row; the held-out MXFP8 MoE rows on Blackwell
// ran ~24% faster than predicted (bench/tune, docs/tune.md).
#include "support/builders.hpp"
#include "throughput/coverage.hpp"
#include "throughput/systems.hpp"
#include "throughput/throughput.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace lg;

namespace {

std::vector<std::string> caveats(const config::JobSpec& spec)
{
  return throughput::coverage_caveats(spec, throughput::system_rates(spec.cluster.gpu_info));
}

bool mentions(const std::vector<std::string>& lines, const std::string& text)
{
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("a calibrated job (FP8 CS dense on H100) has no caveat, and predict carries the same list")
{
  const auto spec = testing::llama3_70b_sft();
  CHECK(caveats(spec).empty());
  CHECK(throughput::predict(spec).caveats.empty());
}

TEST_CASE("GPUs without a calibration row say whose efficiencies they use")
{
  auto spec = testing::llama3_70b_sft();
  spec.cluster.gpu_info = testing::gpu("b300");
  CHECK(mentions(caveats(spec), "b300 GEMM efficiencies are b200's"));
  spec.cluster.gpu_info = testing::gpu("a100-80gb");
  CHECK(mentions(caveats(spec), "A100 efficiencies are defaults"));
  spec.cluster.gpu_info = testing::gpu("h100-80gb");
  spec.cluster.gpu_info.name = "h800";  // no rates: the Hopper reference GPU's
  spec.cluster.gpu = "h800";
  CHECK(mentions(caveats(spec), "no rates for GPU 'h800'"));
}

TEST_CASE("FP4 and dense 16-bit GEMM rates are not calibrated, MoE 16-bit is")
{
  auto spec = testing::llama3_70b_sft();
  spec.training.precision = config::Precision::nvfp4;
  CHECK(mentions(caveats(spec), "FP4 GEMMs are taken at the FP8 fraction"));
  spec.training.precision = config::Precision::bf16;
  CHECK(mentions(caveats(spec), "16-bit GEMM efficiency is not calibrated"));
  auto moe = testing::moe_container_job();
  moe.training.precision = config::Precision::bf16;
  CHECK(caveats(moe).empty());
}

TEST_CASE("MXFP8 MoE on Blackwell names the 2026 kernels the model does not have, on Hopper it does not")
{
  auto moe = testing::moe_container_job();
  moe.training.precision = config::Precision::mxfp8;
  CHECK_FALSE(mentions(caveats(moe), "MXFP8 MoE kernels"));
  moe.cluster.gpu_info = testing::gpu("b200");
  CHECK(mentions(caveats(moe), "MXFP8 MoE kernels"));
  auto dense = testing::llama3_70b_sft();
  dense.training.precision = config::Precision::mxfp8;
  dense.cluster.gpu_info = testing::gpu("b200");
  CHECK(caveats(dense).empty());
}
