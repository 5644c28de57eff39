#include "preflight/judge.hpp"
#include "launch/retry.hpp"
#include "support/builders.hpp"

#include <doctest/doctest.h>

#include <algorithm>

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

TEST_CASE("retry: a hardware failure on a named node is resubmitted without it, adding to earlier exclusions")
{
  const auto spec = lg::testing::llama3_70b_sft();
  lg::launch::RetryInput input;
  input.category = "gpu_hardware";  // Xid 79 on n7 (the driver's kernel-log line names the host)
  input.host = "n7";
  const auto first = lg::launch::decide_retry(spec, input);
  REQUIRE(first.kind == lg::launch::RetryKind::unchanged);  // no --retry-infra needed: leaving the node out is the change
  CHECK(first.exclude == std::vector<std::string>{"n7"});
  CHECK(first.spec.slurm.extra_args.back() == "--exclude=n7");
  // The next failure, on n2, keeps n7 out too; one --exclude, not two.
  input.host = "n2";
  input.excluded = first.exclude;
  const auto second = lg::launch::decide_retry(first.spec, input);
  CHECK(second.exclude == std::vector<std::string>{"n7", "n2"});
  CHECK(std::count_if(second.spec.slurm.extra_args.begin(), second.spec.slurm.extra_args.end(),
                      [](const std::string& a) { return a.rfind("--exclude=", 0) == 0; }) == 1);
  CHECK(second.spec.slurm.extra_args.back() == "--exclude=n7,n2");
  // Slurm's NODE_FAIL is a node failure; PREEMPTED is not.
  input = {};
  input.category = "slurm_preemption_or_node_failure";
  input.host = "n4";
  input.slurm_state = lg::slurm::JobState::node_fail;
  CHECK(lg::launch::decide_retry(spec, input).exclude == std::vector<std::string>{"n4"});
  input.slurm_state = lg::slurm::JobState::preempted;
  CHECK(lg::launch::decide_retry(spec, input).kind == lg::launch::RetryKind::none);  // without --retry-infra
}

TEST_CASE("retry: a host that is no node name is never passed to sbatch")
{
  const auto spec = lg::testing::llama3_70b_sft();
  lg::launch::RetryInput input;
  input.category = "gpu_hardware";
  input.host = "n1;touch /tmp/x";  // whatever a log line carried
  const auto decision = lg::launch::decide_retry(spec, input);
  CHECK(decision.exclude.empty());
  CHECK(decision.kind == lg::launch::RetryKind::none);  // an infrastructure failure without --retry-infra
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
