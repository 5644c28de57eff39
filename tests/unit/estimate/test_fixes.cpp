#include "estimate/fixes.hpp"
#include "support/builders.hpp"

#include <doctest/doctest.h>

TEST_SUITE_BEGIN("estimate");

TEST_CASE("fixes: ids in the source document's order")
{
  const auto& ids = lg::estimate::fix_ids();
  REQUIRE(ids.size() == 7);
  CHECK(ids.front() == "expandable_segments");
  CHECK(ids.back() == "increase_tp");
}

TEST_CASE("fixes: expandable segments merge into the allocator config")
{
  auto spec = lg::testing::minimal_job_spec();
  CHECK(lg::estimate::expandable_segments_enabled(spec));
  // The composer merges a user string without the key, so it stays on.
  spec.env.emplace_back("PYTORCH_CUDA_ALLOC_CONF", "garbage_collection_threshold:0.6");
  CHECK(lg::estimate::expandable_segments_enabled(spec));
  spec.env.back().second = "garbage_collection_threshold:0.6,expandable_segments:False";
  CHECK_FALSE(lg::estimate::expandable_segments_enabled(spec));
  const auto fixed = lg::estimate::apply_fix(spec, "expandable_segments");
  REQUIRE(fixed);
  CHECK(fixed->spec.env.back().second ==
        "garbage_collection_threshold:0.6,expandable_segments:True");
  CHECK(lg::estimate::expandable_segments_enabled(fixed->spec));
  spec.env.clear();
  spec.training.nccl_ub = true;
  CHECK_FALSE(lg::estimate::expandable_segments_enabled(spec));
  CHECK_FALSE(lg::estimate::apply_fix(spec, "expandable_segments"));
}

TEST_CASE("fixes: increase_pp halves DP on the 70B case; increase_tp doubles TP")
{
  const auto spec = lg::testing::llama3_70b_sft();
  const auto pp = lg::estimate::apply_fix(spec, "increase_pp");
  REQUIRE(pp);
  CHECK(pp->spec.parallelism.pp == 8);
  CHECK(lg::config::data_parallel_size(pp->spec) == 1);
  CHECK(pp->description == "pp 4 -> 8, dp 2 -> 1");
  const auto tp = lg::estimate::apply_fix(spec, "increase_tp");
  REQUIRE(tp);
  CHECK(tp->spec.parallelism.tp == 8);
  CHECK(tp->throughput_cost.find("-28%") != std::string::npos);
}

TEST_CASE("fixes: regather needs LoRA with SP; recompute fixes add modules")
{
  auto spec = lg::testing::qwen3_8b_lora();
  REQUIRE(lg::estimate::apply_fix(spec, "lora_input_regather"));
  spec.parallelism.sequence_parallel = false;
  CHECK_FALSE(lg::estimate::apply_fix(spec, "lora_input_regather"));
  const auto mlp = lg::estimate::apply_fix(spec, "recompute_mlp");
  REQUIRE(mlp);
  CHECK(mlp->spec.training.recompute.modules == std::vector<std::string>{"mlp"});
  CHECK_FALSE(lg::estimate::apply_fix(mlp->spec, "recompute_mlp"));
  CHECK_FALSE(lg::estimate::apply_fix(lg::testing::llama3_70b_sft(), "distributed_optimizer"));
}

TEST_SUITE_END();
