#include "rules_test_support.hpp"

using namespace lg;
using lg::testing::contains_text;
using lg::testing::expect_finding;
using lg::testing::fires;
using lg::testing::llama3_70b_sft;
using lg::testing::minimal_job_spec;

TEST_SUITE_BEGIN("rules");

namespace {

// Llama3-8B-like LoRA job: TP2 + SP on 8 H100s.
config::JobSpec lora_spec()
{
  auto spec = minimal_job_spec();
  spec.model.num_layers = 32;
  spec.model.hidden_size = 4096;
  spec.model.ffn_hidden_size = 14336;
  spec.model.num_attention_heads = 32;
  spec.model.num_query_groups = 8;
  spec.model.seq_length = 8192;
  spec.parallelism.tp = 2;
  spec.parallelism.sequence_parallel = true;
  spec.peft.method = "lora";
  return spec;
}

} // namespace

TEST_CASE("sequence_parallel.requires_tp: Bridge with tp 1")
{
  auto spec = minimal_job_spec();
  spec.parallelism.sequence_parallel = true;
  const auto d = expect_finding(spec, "sequence_parallel.requires_tp", Severity::error,
                                "parallelism.sequence_parallel");
  CHECK(contains_text(d.message, "upstream: Cannot use sequence parallelism without tensor "
                                 "parallelism"));
  CHECK_FALSE(fires(spec, "sequence_parallel.disabled_without_tp"));
}

TEST_CASE("sequence_parallel.disabled_without_tp: the Megatron-LM CLI silently disables it")
{
  auto spec = minimal_job_spec();
  spec.parallelism.sequence_parallel = true;
  spec.launch.framework = config::Framework::megatron_lm;
  const auto d = expect_finding(spec, "sequence_parallel.disabled_without_tp", Severity::warning,
                                "parallelism.sequence_parallel");
  CHECK(contains_text(d.message, "upstream: Disabling sequence parallelism because tensor model "
                                 "parallelism is disabled"));
  CHECK_FALSE(fires(spec, "sequence_parallel.requires_tp"));
}

TEST_CASE("sequence_parallel.tp_comm_overlap_needs_sp: Megatron-LM")
{
  auto spec = llama3_70b_sft();
  spec.launch.framework = config::Framework::megatron_lm;
  spec.parallelism.sequence_parallel = false;
  spec.training.tp_comm_overlap = true;
  const auto d = expect_finding(spec, "sequence_parallel.tp_comm_overlap_needs_sp",
                                Severity::error, "training.tp_comm_overlap");
  CHECK(contains_text(d.message, "upstream: Tensor parallel communication/GEMM overlap can "
                                 "happen only when sequence parallelism is enabled"));
}

TEST_CASE("sequence_parallel.tp_comm_overlap_disabled: Bridge")
{
  auto spec = llama3_70b_sft();
  spec.parallelism.sequence_parallel = false;
  spec.training.tp_comm_overlap = true;
  const auto d = expect_finding(spec, "sequence_parallel.tp_comm_overlap_disabled",
                                Severity::warning, "training.tp_comm_overlap");
  CHECK(contains_text(d.message, "Disabling tensor parallel communication overlap due to"));
}

TEST_CASE("sequence_parallel.recommended_with_tp")
{
  auto spec = llama3_70b_sft();
  spec.parallelism.sequence_parallel = false;
  const auto d = expect_finding(spec, "sequence_parallel.recommended_with_tp", Severity::advice,
                                "parallelism.sequence_parallel");
  CHECK(contains_text(d.message, "SP should be True whenever TP > 1."));
}

TEST_CASE("sequence_parallel.lora_input_regather: LoRA + SP without re-gather")
{
  const auto d = expect_finding(lora_spec(), "sequence_parallel.lora_input_regather",
                                Severity::advice, "peft.sequence_parallel_input_regather");
  CHECK(contains_text(d.message, "4.731 GB (10.0%, -6.74% throughput) on Qwen3-8B TP2 seq 8192"));
  CHECK(contains_text(d.fix, "peft.sequence_parallel_input_regather = true"));
  auto on = lora_spec();
  on.peft.sequence_parallel_input_regather = true;
  CHECK_FALSE(fires(on, "sequence_parallel.lora_input_regather"));
  CHECK_FALSE(fires(on, "sequence_parallel.lora_regather_fallback"));
}

TEST_CASE("sequence_parallel.lora_regather_fallback: no effect without SP or with CUDA graphs")
{
  auto spec = lora_spec();
  spec.peft.sequence_parallel_input_regather = true;
  spec.parallelism.sequence_parallel = false;
  spec.training.cuda_graphs = config::CudaGraphs::transformer_engine;
  const auto d = expect_finding(spec, "sequence_parallel.lora_regather_fallback",
                                Severity::warning, "peft.sequence_parallel_input_regather");
  CHECK(contains_text(d.message, "sequence parallelism is disabled; CUDA graphs are enabled"));
  CHECK_FALSE(fires(spec, "sequence_parallel.lora_input_regather"));
}

TEST_SUITE_END();
