#include "preflight/judge.hpp"
#include "launch/retry.hpp"
#include "support/builders.hpp"

#include <doctest/doctest.h>

TEST_SUITE_BEGIN("launch");

TEST_CASE("retry: a fragmentation OOM without expandable segments retries with them")
{
  auto spec = lg::testing::llama3_70b_sft();
  spec.env = {{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:False"}};
  REQUIRE_FALSE(lg::preflight::expandable_segments_on(spec));
  lg::launch::RetryInput input;
  input.category = "cuda_oom_fragmentation";
  input.suggested_change = "expandable_segments";
  const auto decision = lg::launch::decide_retry(spec, input);
  CHECK(decision.kind == lg::launch::RetryKind::with_fix);
  CHECK(decision.fix == "expandable_segments");
  CHECK(lg::preflight::expandable_segments_on(decision.spec));
}

TEST_CASE("retry: a capacity OOM with expandable segments on moves down the ladder")
{
  auto spec = lg::testing::llama3_70b_sft();
  lg::launch::RetryInput input;
  input.category = "cuda_oom_capacity";
  input.fixes_tried = {"expandable_segments"};
  const auto decision = lg::launch::decide_retry(spec, input);
  REQUIRE(decision.kind == lg::launch::RetryKind::with_fix);
  CHECK(decision.fix != "expandable_segments");
  CHECK(decision.fix != "increase_tp");
  CHECK(decision.fix != "lora_input_regather");  // no LoRA in this job
}

TEST_CASE("retry: never more TP automatically, even when the job lists it")
{
  auto spec = lg::testing::llama3_70b_sft();
  spec.retry.fixes = {"increase_tp"};
  lg::launch::RetryInput input;
  input.category = "cuda_oom_capacity";
  const auto decision = lg::launch::decide_retry(spec, input);
  CHECK(decision.kind == lg::launch::RetryKind::none);
  CHECK(decision.reason.find("no fix left") != std::string::npos);
}

TEST_CASE("retry: config errors are never retried; infrastructure only with --retry-infra")
{
  const auto spec = lg::testing::llama3_70b_sft();
  lg::launch::RetryInput input;
  input.category = "cpu_offload_with_pp";
  CHECK(lg::launch::decide_retry(spec, input).kind == lg::launch::RetryKind::none);
  input.category = "slurm_preemption_or_node_failure";
  CHECK(lg::launch::decide_retry(spec, input).kind == lg::launch::RetryKind::none);
  input.retry_infra = true;
  CHECK(lg::launch::decide_retry(spec, input).kind == lg::launch::RetryKind::unchanged);
}

TEST_CASE("retry: a run's first hang is resubmitted unchanged without --retry-infra; a second hang stops the run")
{
  const auto spec = lg::testing::llama3_70b_sft();
  lg::launch::RetryInput input;
  input.category = "hang_no_progress";
  input.earlier_categories = {"cuda_oom_fragmentation"};
  const auto first = lg::launch::decide_retry(spec, input);
  CHECK(first.kind == lg::launch::RetryKind::unchanged);
  CHECK(first.fix.empty());
  input.earlier_categories.push_back("hang_no_progress");
  const auto second = lg::launch::decide_retry(spec, input);
  CHECK(second.kind == lg::launch::RetryKind::none);
  CHECK(second.reason.find("hung before") != std::string::npos);
}

TEST_CASE("retry: a capacity OOM with fused attention never spends an attempt on core_attn recompute")
{
  // Megatron-LM transformer_config: "For fused attention, you have no need to
  // set 'core_attn' to recompute" — check warns recompute.core_attn_with_fused_attention.
  auto spec = lg::testing::llama3_70b_sft();
  spec.training.recompute = {};
  REQUIRE(spec.training.attention_backend != lg::config::AttentionBackend::unfused);
  spec.retry.fixes = {"recompute_core_attn", "recompute_mlp", "distributed_optimizer"};
  lg::launch::RetryInput input;
  input.category = "cuda_oom_capacity";
  const auto decision = lg::launch::decide_retry(spec, input);
  CHECK(decision.fix != "recompute_core_attn");
  MESSAGE(decision.reason);
}

TEST_SUITE_END();
