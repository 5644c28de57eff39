// The preflight stage: one judgement of a job (environment, allocator
// settings, estimate with what-if, findings). Upstream for the allocator
// messages: pytorch/pytorch c10/core/AllocatorConfig.{h,cpp} and
// c10/cuda/CUDAAllocatorConfig.cpp (see src/env/allocator_settings.hpp).
#include "support/stage_component.hpp"
#include "preflight/judge.hpp"
#include "support/builders.hpp"

#include <doctest/doctest.h>

#include <algorithm>

namespace {

using lg::preflight::judge;

lg::config::JobSpec llama3_70b_recipe()
{
  auto spec = lg::testing::llama3_70b_sft();
  spec.training.optimizer.grad_dtype = "bf16";
  return spec;
}

const lg::Diagnostic* finding(const lg::preflight::JudgedJob& job, const std::string& rule)
{
  const auto it = std::find_if(job.findings.begin(), job.findings.end(),
                               [&](const lg::Diagnostic& d) { return d.rule == rule; });
  return it == job.findings.end() ? nullptr : &*it;
}

} // namespace

TEST_SUITE_BEGIN("preflight");

TEST_CASE("judge: the policy's expandable segments are in effect and no fragmentation is added")
{
  const auto job = judge(llama3_70b_recipe());
  CHECK(job.allocator.valid());
  CHECK(job.allocator.expandable_in_effect());
  CHECK(lg::testing::stage_component(job.estimate.stages[0], "fragmentation") == 0);
  CHECK_FALSE(job.has_errors());
}

TEST_CASE("judge: lowercase expandable_segments:true is PyTorch's start-up error, not a fragmentation risk")
{
  auto spec = llama3_70b_recipe();
  spec.env = {{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:true"}};
  const auto job = judge(spec);
  const lg::Diagnostic* error = finding(job, "allocator_config_error");
  REQUIRE(error != nullptr);
  CHECK(error->severity == lg::Severity::error);
  // PyTorch 2.4-2.7 and 2.8+ messages, both quoted.
  CHECK(error->message.find("Expected a single True/False argument for expandable_segments") != std::string::npos);
  CHECK(error->message.find("Expected 'True' or 'False' at index 2 in ConfigTokenizer but got 'true'")
        != std::string::npos);
  CHECK(error->fix.find("expandable_segments:True") != std::string::npos);
  CHECK(job.has_errors());
  // Estimated as the user meant it: no fragmentation allowance, no
  // expandable-segments row in the what-if table, and the estimate says so.
  CHECK(lg::testing::stage_component(job.estimate.stages[0], "fragmentation") == 0);
  for (const auto& row : job.estimate.what_if) {
    CHECK(row.fix != "expandable_segments");
  }
  CHECK(std::any_of(job.estimate.assumptions.begin(), job.estimate.assumptions.end(),
                    [](const std::string& a) { return a.find("rejected by PyTorch") != std::string::npos; }));
  // No second, contradicting finding about the same key.
  CHECK(finding(job, "env.alloc_conf_conflict") == nullptr);
}

TEST_CASE("judge: expandable_segments:False adds the fragmentation allowance and offers the fix")
{
  auto spec = llama3_70b_recipe();
  spec.env = {{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:False"}};
  const auto job = judge(spec);
  CHECK(job.allocator.valid());
  CHECK_FALSE(job.allocator.expandable_in_effect());
  REQUIRE_FALSE(job.estimate.what_if.empty());
  CHECK(job.estimate.what_if.front().fix == "expandable_segments");
  CHECK(job.estimate.what_if.front().saves_bytes
        == doctest::Approx(lg::testing::stage_component(job.estimate.stages[0], "fragmentation")));
}

TEST_CASE("judge: backend:cudaMallocAsync drops the policy's expandable segments")
{
  auto spec = llama3_70b_recipe();
  spec.env = {{"PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync"}};
  const auto job = judge(spec);
  CHECK(job.allocator.valid());
  CHECK(job.allocator.cuda_malloc_async);
  CHECK_FALSE(job.allocator.expandable_in_effect());
  const auto* v = job.environment.find("PYTORCH_CUDA_ALLOC_CONF");
  REQUIRE(v != nullptr);
  CHECK(v->value == "backend:cudaMallocAsync");
  // The fix does not apply: the async backend ignores expandable segments.
  for (const auto& row : job.estimate.what_if) {
    CHECK(row.fix != "expandable_segments");
  }
}

TEST_CASE("judge: --set overrides are the top layer and are judged the same way")
{
  lg::preflight::Options options;
  options.overrides = {{"PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:10"}};
  const auto job = judge(llama3_70b_recipe(), options);
  const lg::Diagnostic* error = finding(job, "allocator_config_error");
  REQUIRE(error != nullptr);
  CHECK(error->message.find("CachingAllocator option max_split_size_mb too small, must be >= 20")
        != std::string::npos);
  CHECK_FALSE(error->where.has_value());  // the command line has no file location
}

TEST_CASE("judge: without the estimate only the environment is composed")
{
  lg::preflight::Options options;
  options.with_estimate = false;
  const auto job = judge(llama3_70b_recipe(), options);
  CHECK(job.estimate.stages.empty());
  CHECK_FALSE(job.environment.variables.empty());
}

TEST_CASE("what-if: one row per applicable fix, in fix order, with costs")
{
  auto spec = llama3_70b_recipe();
  spec.env = {{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:False"}};
  const auto est = judge(spec).estimate;
  REQUIRE(est.what_if.size() >= 4);
  CHECK(est.what_if.front().fix == "expandable_segments");
  CHECK(est.what_if.front().throughput_cost.find("0%") != std::string::npos);
  CHECK(est.what_if.front().saves_bytes == doctest::Approx(lg::testing::stage_component(est.stages[0], "fragmentation")));
  double tp_saves = 0;
  double core_attn_saves = 0;
  for (const auto& row : est.what_if) {
    CHECK(row.peak_bytes < est.peak_bytes);
    tp_saves = row.fix == "increase_tp" ? row.saves_bytes : tp_saves;
    core_attn_saves = row.fix == "recompute_core_attn" ? row.saves_bytes : core_attn_saves;
    CHECK(row.fix != "lora_input_regather");  // no LoRA in this job
    CHECK(row.fix != "distributed_optimizer");  // already on
  }
  CHECK(tp_saves > core_attn_saves);
}

TEST_SUITE_END();
