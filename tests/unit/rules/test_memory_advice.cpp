#include "rules_test_support.hpp"

using namespace lg;
using lg::testing::contains_text;
using lg::testing::expect_finding;
using lg::testing::fires;
using lg::testing::llama3_70b_sft;

TEST_SUITE_BEGIN("rules");

namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

// The Megatron Bridge memory-tuning guide's baseline OOM (NVIDIA/skills
// skills/nemo-mbridge-perf-memory-tuning/SKILL.md:181-200): 58.8 GiB allocated, fragmentation on
// top, expandable_segments as the first fix.
estimate::Estimate oom_estimate(estimate::Verdict verdict)
{
  estimate::Estimate e;
  e.verdict = verdict;
  e.capacity_bytes = 79.65 * k_gib;
  e.peak_bytes = 84.0 * k_gib;
  e.most_loaded_pp_rank = 0;
  estimate::StageEstimate s0;
  s0.pp_rank = 0;
  s0.components = {{"weights", 9.0 * k_gib}, {"activations", 31.5 * k_gib},
                   {"fragmentation", 12.0 * k_gib}};
  estimate::StageEstimate s1 = s0;
  s1.pp_rank = 1;
  s1.components = {{"weights", 40.0 * k_gib}};  // not the most loaded rank
  e.stages = {s0, s1};
  e.what_if = {
    {"lora_input_regather", "sequence_parallel_input_regather", 83.0 * k_gib, 1.0 * k_gib, ""},
    {"expandable_segments", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", 72.0 * k_gib,
     12.0 * k_gib, "0%"},
    {"increase_tp", "tp 4 -> 8", 60.0 * k_gib, 24.0 * k_gib, "-28% (Llama3 70B)"},
  };
  return e;
}

} // namespace

TEST_CASE("memory.oom: largest component of the most loaded rank, first what-if that fits")
{
  const auto d = expect_finding(llama3_70b_sft(), "memory.oom", Severity::error, "cluster.gpu",
                                oom_estimate(estimate::Verdict::oom));
  CHECK(contains_text(d.message, "estimated peak 84.00 GiB on pp rank 0 exceeds the H100 80GB "
                                 "HBM3 capacity of 79.65 GiB"));
  CHECK(contains_text(d.message, "largest component: activations 31.50 GiB"));
  CHECK(d.fix == "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True [expandable_segments]: peak "
                 "84.00 GiB -> 72.00 GiB, throughput 0%");
  CHECK_FALSE(fires(llama3_70b_sft(), "memory.borderline", oom_estimate(estimate::Verdict::oom)));
}

TEST_CASE("memory.not_modelled: an unknown verdict is a warning with the reason, never oom")
{
  auto e = oom_estimate(estimate::Verdict::unknown);
  e.not_modelled = {"DeepSpeed ZeRO (stage 3): its partitioning is not Megatron's"};
  const auto d = expect_finding(llama3_70b_sft(), "memory.not_modelled", Severity::warning,
                                "cluster.gpu", e);
  CHECK(contains_text(d.message, "memory verdict unknown: DeepSpeed ZeRO (stage 3)"));
  CHECK_FALSE(fires(llama3_70b_sft(), "memory.oom", e));
  CHECK_FALSE(fires(llama3_70b_sft(), "memory.not_modelled", oom_estimate(estimate::Verdict::oom)));
}

TEST_CASE("memory.borderline")
{
  auto e = oom_estimate(estimate::Verdict::borderline);
  e.peak_bytes = 78.0 * k_gib;
  e.what_if.clear();
  const auto d = expect_finding(llama3_70b_sft(), "memory.borderline", Severity::warning,
                                "cluster.gpu", e);
  CHECK(contains_text(d.message, "is close to the H100 80GB HBM3 capacity"));
  CHECK(contains_text(d.fix, "launchguard estimate"));
  CHECK_FALSE(fires(llama3_70b_sft(), "memory.oom", e));
}

TEST_CASE("advice.avoid_tp_increase and advice.vpp_not_memory_fix when memory is tight")
{
  const auto e = oom_estimate(estimate::Verdict::borderline);
  auto d = expect_finding(llama3_70b_sft(), "advice.avoid_tp_increase", Severity::advice,
                          "parallelism.tp", e);
  CHECK(contains_text(d.message, "throughput fell 28.4% (709.93 -> 508.7 TFLOP/s/GPU)"));
  d = expect_finding(llama3_70b_sft(), "advice.vpp_not_memory_fix", Severity::advice,
                     "parallelism.vpp", e);
  CHECK(contains_text(d.message, "VPP 10 used more memory than VPP 5 (60.2 vs 58.8 GB)"));
  CHECK_FALSE(fires(llama3_70b_sft(), "advice.avoid_tp_increase"));
  // An unknown verdict (a setting the estimate does not model) is not tight
  // memory: the advice that presumes it stays silent.
  const auto unknown = oom_estimate(estimate::Verdict::unknown);
  CHECK_FALSE(fires(llama3_70b_sft(), "advice.avoid_tp_increase", unknown));
  CHECK_FALSE(fires(llama3_70b_sft(), "advice.vpp_not_memory_fix", unknown));
  CHECK(fires(llama3_70b_sft(), "advice.avoid_tp_increase", oom_estimate(estimate::Verdict::oom)));
}

TEST_CASE("advice.pp_at_cost_of_dp: PP 8 leaves DP 1")
{
  auto spec = llama3_70b_sft();
  spec.parallelism.pp = 8;  // 80 / 8 = 10 layers, vpp 5 -> 2 per chunk
  const auto d = expect_finding(spec, "advice.pp_at_cost_of_dp", Severity::advice,
                                "parallelism.pp");
  CHECK(contains_text(d.message, "32 gradient-accumulation microbatches"));
  CHECK(contains_text(d.message, "cost 5.9% throughput"));
}

TEST_CASE("advice.mlp_recompute_cost")
{
  auto spec = llama3_70b_sft();
  spec.training.recompute.granularity = config::RecomputeGranularity::selective;
  spec.training.recompute.modules = {"mlp"};
  const auto d = expect_finding(spec, "advice.mlp_recompute_cost", Severity::advice,
                                "training.recompute");
  CHECK(contains_text(d.message, "~16% GPU utilization"));
}

TEST_CASE("advice.optimizer_offload_cost")
{
  auto spec = llama3_70b_sft();
  spec.training.optimizer.cpu_offload_fraction = 0.25;
  spec.training.optimizer.precision_aware = true;
  const auto d = expect_finding(spec, "advice.optimizer_offload_cost", Severity::advice,
                                "training.optimizer");
  CHECK(contains_text(d.message, "~3.8 GB"));
}

TEST_SUITE_END();
