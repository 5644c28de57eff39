#include "rules_test_support.hpp"

using namespace lg;
using lg::testing::contains_text;
using lg::testing::expect_finding;
using lg::testing::llama3_70b_sft;

TEST_SUITE_BEGIN("rules");

TEST_CASE("pipeline.vpp_requires_pp: vpp with pp 1")
{
  auto spec = llama3_70b_sft();
  spec.parallelism.pp = 1;
  spec.parallelism.vpp = 2;
  const auto d = expect_finding(spec, "pipeline.vpp_requires_pp", Severity::error,
                                "parallelism.vpp");
  CHECK(contains_text(d.message, "upstream: pipeline-model-parallel size should be greater than 1 "
                                 "with interleaved schedule"));
}

TEST_CASE("pipeline.vpp_layers_divisible: uneven PP middle ranks (Megatron-LM's message)")
{
  auto spec = llama3_70b_sft();
  spec.parallelism.first_stage_layers = 8;  // 8 % 5 != 0
  spec.parallelism.last_stage_layers = 8;
  spec.parallelism.vpp = 5;
  auto d = expect_finding(spec, "pipeline.vpp_layers_divisible", Severity::error,
                          "parallelism.first_stage_layers");
  CHECK(contains_text(d.message, "upstream: ValueError: number of layers at first stage: 8must be "
                                 "divisible by virtual pipelineparallel degree 5"));

  spec.parallelism.first_stage_layers = 10;
  spec.parallelism.last_stage_layers = 10;  // 30 per middle rank
  spec.parallelism.vpp = 5;
  CHECK_FALSE(lg::testing::fires(spec, "pipeline.vpp_layers_divisible"));
  spec.parallelism.first_stage_layers = 12;
  spec.parallelism.last_stage_layers = 18;
  spec.parallelism.vpp = 6;  // 50 layers / 2 middle ranks = 25, 25 % 6 != 0
  d = expect_finding(spec, "pipeline.vpp_layers_divisible", Severity::error, "parallelism.vpp");
  CHECK(contains_text(d.message, "upstream: ValueError: number of layers on each middle pipeline "
                                 "rank:25 must be divisible by virtualpipeline parallel degree 6"));
  CHECK(contains_text(d.fix, "5, 25"));
}

TEST_CASE("pipeline.vpp_layers_divisible: even PP, 20 layers per rank with vpp 3")
{
  auto spec = llama3_70b_sft();
  spec.parallelism.vpp = 3;
  const auto d = expect_finding(spec, "pipeline.vpp_layers_divisible", Severity::error,
                                "parallelism.vpp");
  CHECK(contains_text(d.message, "20 layers per pipeline rank (80 layers / pp 4) are not "
                                 "divisible by vpp 3"));
  CHECK(contains_text(d.message, "upstream: AssertionError: num_layers_per_pipeline_rank 20 "
                                 "should be divisible by vp_size 3"));
  CHECK(contains_text(d.fix, "2, 4, 5, 10, 20"));
}

TEST_CASE("pipeline.vpp_microbatch_range: 2 microbatches with pp 4")
{
  auto spec = llama3_70b_sft();
  spec.training.global_batch_size = 4;  // dp 2, mbs 1: M = 2
  const auto d = expect_finding(spec, "pipeline.vpp_microbatch_range", Severity::error,
                                "training.global_batch_size");
  CHECK(contains_text(d.message, "upstream: The number of contiguous micro-batches in a virtual "
                                 "pipeline stageshould range in [PP=4 , M=2]"));
  CHECK(contains_text(d.fix, "multiple of 8"));
}

TEST_CASE("pipeline.vpp_microbatch_remainder: 18 microbatches with pp 4")
{
  auto spec = llama3_70b_sft();
  spec.training.global_batch_size = 36;  // M = 18, 18 % 4 = 2
  const auto d = expect_finding(spec, "pipeline.vpp_microbatch_remainder", Severity::error,
                                "training.global_batch_size");
  CHECK(contains_text(d.message,
                      "upstream: The remainder of M (the total micro-batches) divided by N "
                      "(number of contiguous micro-batches in a virtual pipeline stage) should be "
                      "0, or larger than or equal to the pipeline-parallel size, but it is 2. "
                      "Otherwise, it introduces dependency bubbles in the pipeline and reduces "
                      "throughput."));
}

TEST_CASE("pipeline.pp_without_vpp: pp 4 without interleaving")
{
  auto spec = llama3_70b_sft();
  spec.parallelism.vpp.reset();
  const auto d = expect_finding(spec, "pipeline.pp_without_vpp", Severity::advice,
                                "parallelism.pp");
  CHECK(contains_text(d.message, "PP without interleaving has large pipeline bubbles."));
  CHECK(contains_text(d.fix, "2, 4, 5, 10, 20"));
}

TEST_SUITE_END();
