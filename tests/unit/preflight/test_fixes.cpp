#include "preflight/fixes.hpp"
#include "preflight/judge.hpp"
#include "support/builders.hpp"

#include <doctest/doctest.h>

TEST_SUITE_BEGIN("preflight");

TEST_CASE("fixes: ids in the memory-tuning guide's order")
{
  const auto& ids = lg::preflight::fix_ids();
  REQUIRE(ids.size() == 7);
  CHECK(ids.front() == "expandable_segments");
  CHECK(ids.back() == "increase_tp");
}

TEST_CASE("fixes: expandable segments merge into the allocator config")
{
  auto spec = lg::testing::minimal_job_spec();
  CHECK(lg::preflight::expandable_segments_on(spec));
  // The composer merges a user string without the key, so it stays on.
  spec.env.emplace_back("PYTORCH_CUDA_ALLOC_CONF", "garbage_collection_threshold:0.6");
  CHECK(lg::preflight::expandable_segments_on(spec));
  spec.env.back().second = "garbage_collection_threshold:0.6,expandable_segments:False";
  CHECK_FALSE(lg::preflight::expandable_segments_on(spec));
  const auto fixed = lg::preflight::apply_fix(spec, "expandable_segments");
  REQUIRE(fixed);
  CHECK(fixed->spec.env.back().second ==
        "garbage_collection_threshold:0.6,expandable_segments:True");
  CHECK(lg::preflight::expandable_segments_on(fixed->spec));
  spec.env.clear();
  spec.training.nccl_ub = true;
  CHECK_FALSE(lg::preflight::expandable_segments_on(spec));
  CHECK_FALSE(lg::preflight::apply_fix(spec, "expandable_segments"));
}

TEST_CASE("fixes: increase_pp halves DP on the 70B case; increase_tp doubles TP")
{
  const auto spec = lg::testing::llama3_70b_sft();
  const auto pp = lg::preflight::apply_fix(spec, "increase_pp");
  REQUIRE(pp);
  CHECK(pp->spec.parallelism.pp == 8);
  CHECK(lg::config::data_parallel_size(pp->spec) == 1);
  CHECK(pp->description == "pp 4 -> 8, dp 2 -> 1");
  const auto tp = lg::preflight::apply_fix(spec, "increase_tp");
  REQUIRE(tp);
  CHECK(tp->spec.parallelism.tp == 8);
  CHECK(tp->throughput_cost.find("-28%") != std::string::npos);
}

TEST_CASE("fixes: regather needs LoRA with SP; recompute fixes add modules")
{
  auto spec = lg::testing::qwen3_8b_lora();
  REQUIRE(lg::preflight::apply_fix(spec, "lora_input_regather"));
  spec.parallelism.sequence_parallel = false;
  CHECK_FALSE(lg::preflight::apply_fix(spec, "lora_input_regather"));
  const auto mlp = lg::preflight::apply_fix(spec, "recompute_mlp");
  REQUIRE(mlp);
  CHECK(mlp->spec.training.recompute.modules == std::vector<std::string>{"mlp"});
  CHECK_FALSE(lg::preflight::apply_fix(mlp->spec, "recompute_mlp"));
  CHECK_FALSE(lg::preflight::apply_fix(lg::testing::llama3_70b_sft(), "distributed_optimizer"));
}

TEST_SUITE_END();
