#include "rules_test_support.hpp"

using namespace lg;
using lg::testing::contains_text;
using lg::testing::expect_finding;
using lg::testing::fires;

TEST_SUITE_BEGIN("rules");

namespace {

config::JobSpec overlap_spec()
{
  auto spec = lg::testing::moe_spec();
  spec.training.overlap_moe_expert_parallel_comm = true;
  return spec;
}

} // namespace

TEST_CASE("ep_overlap: a valid EP overlap job has no ep_overlap findings")
{
  for (const auto& d : lg::testing::run_rules(overlap_spec())) {
    CHECK_FALSE(d.rule.starts_with("ep_overlap."));
  }
}

TEST_CASE("ep_overlap.needs_vpp")
{
  auto spec = overlap_spec();
  spec.parallelism.pp = 2;
  spec.cluster.nodes = 4;
  const auto d = expect_finding(spec, "ep_overlap.needs_vpp", Severity::error, "parallelism.vpp");
  CHECK(contains_text(d.message, "upstream: If enabling EP A2A overlap, "
                                 "virtual_pipeline_model_parallel_size must be specified when "
                                 "pipeline_model_parallel_size > 1"));
}

TEST_CASE("ep_overlap.needs_ep")
{
  auto spec = overlap_spec();
  spec.parallelism.ep = 1;
  const auto d = expect_finding(spec, "ep_overlap.needs_ep", Severity::error,
                                "training.overlap_moe_expert_parallel_comm");
  CHECK(contains_text(d.message, "upstream: overlap_moe_expert_parallel_comm is only supported "
                                 "with expert model parallelism"));
}

TEST_CASE("ep_overlap.needs_experts: Bridge, dense model")
{
  auto spec = lg::testing::llama3_70b_sft();
  spec.training.overlap_moe_expert_parallel_comm = true;
  const auto d = expect_finding(spec, "ep_overlap.needs_experts", Severity::error,
                                "training.overlap_moe_expert_parallel_comm");
  CHECK(contains_text(d.message, "upstream: overlap_moe_expert_parallel_comm is only supported "
                                 "when num_moe_experts > 1"));
}

TEST_CASE("ep_overlap.dispatcher: allgather")
{
  auto spec = overlap_spec();
  spec.model.moe->token_dispatcher = "allgather";
  const auto d = expect_finding(spec, "ep_overlap.dispatcher", Severity::error,
                                "model.moe.token_dispatcher");
  CHECK(contains_text(d.message, "upstream: overlap_moe_expert_parallel_comm is supported with "
                                 "alltoall/flex token dispatcher"));
}

TEST_CASE("ep_overlap.recompute: full, then moe module")
{
  auto spec = overlap_spec();
  spec.training.recompute.granularity = config::RecomputeGranularity::full;
  auto d = expect_finding(spec, "ep_overlap.recompute", Severity::error, "training.recompute");
  CHECK(contains_text(d.message, "upstream: disable full recomputation when enabling "
                                 "overlap_moe_expert_parallel_comm"));
  spec.training.recompute.granularity = config::RecomputeGranularity::selective;
  spec.training.recompute.modules = {"moe"};
  d = expect_finding(spec, "ep_overlap.recompute", Severity::error, "training.recompute");
  CHECK(contains_text(d.message, "upstream: disable moe in recompute_modules when enabling "
                                 "overlap_moe_expert_parallel_comm"));
}

TEST_CASE("ep_overlap.mtp_layers")
{
  auto spec = overlap_spec();
  spec.model.mtp_num_layers = 2;
  const auto d = expect_finding(spec, "ep_overlap.mtp_layers", Severity::error,
                                "model.mtp_num_layers");
  CHECK(contains_text(d.message, "upstream: MTP supports at most one layer when enabling "
                                 "overlap_moe_expert_parallel_comm."));
}

TEST_CASE("ep_overlap.cuda_graph_modules: TE graph of moe")
{
  auto spec = overlap_spec();
  spec.training.cuda_graphs = config::CudaGraphs::transformer_engine;
  spec.training.cuda_graph_modules = {"attn", "mlp"};
  const auto d = expect_finding(spec, "ep_overlap.cuda_graph_modules", Severity::error,
                                "training.cuda_graph_modules");
  CHECK(contains_text(d.message, "upstream: CUDA graph scope on moe and mlp is not supported "
                                 "with overlap_moe_expert_parallel_comm"));
}

TEST_CASE("ep_overlap.delay_wgrad_needs_overlap")
{
  auto spec = lg::testing::moe_spec();
  spec.training.delay_wgrad_compute = true;
  const auto d = expect_finding(spec, "ep_overlap.delay_wgrad_needs_overlap", Severity::error,
                                "training.delay_wgrad_compute");
  CHECK(contains_text(d.message, "upstream: overlap_moe_expert_parallel_comm must be enabled "
                                 "when enabling delay_wgrad_compute"));
  CHECK_FALSE(fires(overlap_spec(), "ep_overlap.delay_wgrad_needs_overlap"));
}

TEST_SUITE_END();
