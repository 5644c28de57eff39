#include "rules_test_support.hpp"

using namespace lg;
using lg::testing::contains_text;
using lg::testing::expect_finding;
using lg::testing::llama3_70b_sft;
using lg::testing::minimal_job_spec;

TEST_SUITE_BEGIN("rules");

TEST_CASE("offload.cpu_offloading_with_pp: the memory-tuning guide's experiments 4-6")
{
  for (const int layers : {2, 4, 6}) {
    auto spec = llama3_70b_sft();
    spec.training.cpu_offloading_layers = layers;
    const auto d = expect_finding(spec, "offload.cpu_offloading_with_pp", Severity::error,
                                  "parallelism.pp");
    CHECK(contains_text(d.message, "ValueError: Currently there is no support for Pipeline "
                                   "parallelism with CPU offloading"));
    CHECK(contains_text(d.message, "with pp = 4"));
    CHECK(contains_text(d.fix, "set pp = 1 or cpu_offloading_layers = 0"));
  }
}

TEST_CASE("offload.cpu_offloading_layers_range: 4 of 4 layers")
{
  auto spec = minimal_job_spec();
  spec.training.cpu_offloading_layers = 4;
  const auto d = expect_finding(spec, "offload.cpu_offloading_layers_range", Severity::error,
                                "training.cpu_offloading_layers");
  CHECK(contains_text(d.message, "upstream: CPU offloading can be done only for layers less "
                                 "than 4"));
}

TEST_CASE("offload.cpu_offloading_with_recompute")
{
  auto spec = minimal_job_spec();
  spec.training.cpu_offloading_layers = 2;
  spec.training.recompute.granularity = config::RecomputeGranularity::full;
  const auto d = expect_finding(spec, "offload.cpu_offloading_with_recompute", Severity::error,
                                "training.cpu_offloading_layers");
  CHECK(contains_text(d.message, "upstream: CPU offloading does not work when activation "
                                 "recomputation is enabled"));
}

TEST_CASE("offload.cpu_offloading_with_cuda_graphs: TE graphs, not full iteration")
{
  auto spec = minimal_job_spec();
  spec.training.cpu_offloading_layers = 2;
  spec.training.cuda_graphs = config::CudaGraphs::transformer_engine;
  const auto d = expect_finding(spec, "offload.cpu_offloading_with_cuda_graphs", Severity::error,
                                "training.cuda_graphs");
  CHECK(contains_text(d.message, "upstream: CUDA graphs not supported with CPU offloading."));
  spec.training.cuda_graphs = config::CudaGraphs::full_iteration;
  CHECK_FALSE(lg::testing::fires(spec, "offload.cpu_offloading_with_cuda_graphs"));
}

TEST_CASE("offload.optimizer_needs_precision_aware")
{
  auto spec = llama3_70b_sft();
  spec.training.optimizer.cpu_offload_fraction = 0.5;
  const auto d = expect_finding(spec, "offload.optimizer_needs_precision_aware", Severity::error,
                                "training.optimizer");
  CHECK(contains_text(d.message,
                      "upstream: The optimizer cpu offload must be used in conjunction with "
                      "`--use-precision-aware-optimizer`, as the hybrid device optimizer reuses "
                      "the code path of this flag."));
}

TEST_CASE("offload.optimizer_fp8_param_gather: fp8-cs recipe")
{
  auto spec = llama3_70b_sft();
  spec.training.optimizer.cpu_offload_fraction = 1.0;
  spec.training.optimizer.precision_aware = true;
  spec.training.fp8_param_gather = true;
  const auto d = expect_finding(spec, "offload.optimizer_fp8_param_gather", Severity::error,
                                "training.fp8_param_gather");
  CHECK(contains_text(d.message, "upstream: When `--fp8-param-gather` is enabled, the optimizer "
                                 "cpu offload must be used in conjunction with `--fp8-recipe "
                                 "delayed`."));
  spec.training.precision = config::Precision::fp8_delayed;
  CHECK_FALSE(lg::testing::fires(spec, "offload.optimizer_fp8_param_gather"));
}

TEST_CASE("offload.optimizer_needs_distributed_optimizer")
{
  auto spec = llama3_70b_sft();
  spec.training.optimizer.cpu_offload_fraction = 0.25;
  spec.training.optimizer.precision_aware = true;
  spec.training.distributed_optimizer = false;
  const auto d = expect_finding(spec, "offload.optimizer_needs_distributed_optimizer",
                                Severity::advice, "training.distributed_optimizer");
  CHECK(contains_text(d.message, "Requires `use_distributed_optimizer = True`"));
}

TEST_CASE("offload.optimizer_fraction_range: 1.5")
{
  auto spec = llama3_70b_sft();
  spec.training.optimizer.cpu_offload_fraction = 1.5;
  spec.training.optimizer.precision_aware = true;
  const auto d = expect_finding(spec, "offload.optimizer_fraction_range", Severity::advice,
                                "training.optimizer");
  CHECK(contains_text(d.message, "1.5 is outside [0, 1]"));
}

TEST_SUITE_END();
