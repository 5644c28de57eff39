#include "rules_test_support.hpp"

using namespace lg;
using lg::testing::contains_text;
using lg::testing::expect_finding;
using lg::testing::fires;
using lg::testing::llama3_70b_sft;

TEST_SUITE_BEGIN("rules");

namespace {

config::JobSpec on(config::GpuGeneration generation, config::Precision precision)
{
  auto spec = llama3_70b_sft();
  spec.cluster.gpu_info.generation = generation;
  spec.cluster.gpu_info.display_name = "test GPU";
  spec.training.precision = precision;
  return spec;
}

} // namespace

TEST_CASE("precision.fp8_requires_hopper: fp8-cs and fp8-blockwise on Ampere")
{
  auto d = expect_finding(on(config::GpuGeneration::ampere, config::Precision::fp8_cs),
                          "precision.fp8_requires_hopper", Severity::error, "training.precision");
  CHECK(contains_text(d.message, "upstream: RuntimeError: Device compute capability 8.9 or "
                                 "higher required for FP8 execution."));
  d = expect_finding(on(config::GpuGeneration::ampere, config::Precision::fp8_blockwise),
                     "precision.fp8_requires_hopper", Severity::error, "training.precision");
  CHECK(contains_text(d.message, "FP8 block scaled GEMM requires compute capability 9.0 or "
                                 "higher and CUDA >= 12.9."));
  CHECK_FALSE(fires(on(config::GpuGeneration::hopper, config::Precision::fp8_cs),
                    "precision.fp8_requires_hopper"));
}

TEST_CASE("precision.mx_nv_requires_blackwell: mxfp8 and nvfp4 on Hopper")
{
  auto d = expect_finding(on(config::GpuGeneration::hopper, config::Precision::mxfp8),
                          "precision.mx_nv_requires_blackwell", Severity::error,
                          "training.precision");
  CHECK(contains_text(d.message, "upstream: RuntimeError: Device compute capability 10.0 or "
                                 "higher required for MXFP8 execution."));
  d = expect_finding(on(config::GpuGeneration::hopper, config::Precision::nvfp4),
                     "precision.mx_nv_requires_blackwell", Severity::error, "training.precision");
  CHECK(contains_text(d.message, "Device compute capability 10.0 or higher required for NVFP4 "
                                 "execution."));
  CHECK_FALSE(fires(on(config::GpuGeneration::blackwell, config::Precision::mxfp8),
                    "precision.mx_nv_requires_blackwell"));
}

TEST_CASE("precision.dims_divisible_by_16: ffn 28680 / tp 4 = 7170")
{
  auto spec = llama3_70b_sft();
  spec.model.ffn_hidden_size = 28680;
  const auto d = expect_finding(spec, "precision.dims_divisible_by_16", Severity::error,
                                "training.precision");
  CHECK(contains_text(d.message, "ffn_hidden_size/tp=7170"));
  CHECK(contains_text(d.message, "AssertionError: FP8 execution requires 2D input matrices with "
                                 "height divisible by 8 and width divisible by 16"));
  spec.training.precision = config::Precision::bf16;
  CHECK_FALSE(fires(spec, "precision.dims_divisible_by_16"));
}

TEST_CASE("precision.fp8_param_gather_needs_fp8")
{
  auto spec = llama3_70b_sft();
  spec.training.precision = config::Precision::bf16;
  spec.training.fp8_param_gather = true;
  const auto d = expect_finding(spec, "precision.fp8_param_gather_needs_fp8", Severity::error,
                                "training.fp8_param_gather");
  CHECK(contains_text(d.message, "upstream: fp8_param must be used together with fp8 mode."));
}

TEST_CASE("precision.fp8_param_gather_needs_sharding")
{
  auto spec = llama3_70b_sft();
  spec.training.fp8_param_gather = true;
  spec.training.distributed_optimizer = false;
  const auto d = expect_finding(spec, "precision.fp8_param_gather_needs_sharding",
                                Severity::error, "training.fp8_param_gather");
  CHECK(contains_text(d.message, "upstream: --fp8-param-gather only supported with distributed "
                                 "optimizer, torch fsdp2, megatron fsdp, or inference mode"));
}

TEST_CASE("precision.recipe_for_platform: fp8-cs on Blackwell")
{
  const auto d = expect_finding(on(config::GpuGeneration::blackwell, config::Precision::fp8_cs),
                                "precision.recipe_for_platform", Severity::advice,
                                "training.precision");
  CHECK(contains_text(d.message, "MXFP8 (1x32 blocks) and NVFP4 (16 elements)"));
}

TEST_SUITE_END();
