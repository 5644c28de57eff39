#include "rules_test_support.hpp"

using namespace lg;
using lg::testing::contains_text;
using lg::testing::expect_finding;
using lg::testing::llama3_70b_sft;

TEST_SUITE_BEGIN("rules");

TEST_CASE("model.required_args: zero num_layers")
{
  auto spec = llama3_70b_sft();
  spec.model.num_layers = 0;
  const auto d = expect_finding(spec, "model.required_args", Severity::error, "model.num_layers");
  CHECK(contains_text(d.message, "model.num_layers must be a positive integer, got 0"));
}

TEST_CASE("model.hidden_divisible_by_heads: 1000 / 16 without kv_channels")
{
  auto spec = lg::testing::minimal_job_spec();
  spec.model.hidden_size = 1000;
  const auto d = expect_finding(spec, "model.hidden_divisible_by_heads", Severity::error,
                                "model.kv_channels");
  CHECK(contains_text(d.message, "hidden_size 1000 is not divisible by num_attention_heads 16"));
}

TEST_CASE("model.max_position_embeddings: 4096 < seq 8192")
{
  auto spec = llama3_70b_sft();
  spec.model.max_position_embeddings = 4096;
  spec.model.seq_length = 8192;
  const auto d = expect_finding(spec, "model.max_position_embeddings", Severity::error,
                                "model.max_position_embeddings");
  CHECK(contains_text(d.message, "upstream: max_position_embeddings (4096) must be greater than "
                                 "or equal to seq_length (8192)."));
}

TEST_CASE("model.mtp_position_embedding: MTP with yarn position embeddings")
{
  auto spec = llama3_70b_sft();
  spec.model.mtp_num_layers = 1;
  spec.model.position_embedding_type = "yarn";
  const auto d = expect_finding(spec, "model.mtp_position_embedding", Severity::error,
                                "model.mtp_num_layers");
  CHECK(contains_text(d.message, "upstream: Multi-Token Prediction (MTP) is not supported with "
                                 "'yarn' position embedding type."));
  spec.model.position_embedding_type = "rope";
  CHECK_FALSE(lg::testing::fires(spec, "model.mtp_position_embedding"));
}

TEST_CASE("model.mla_vs_gqa: Megatron-LM only")
{
  auto spec = llama3_70b_sft();
  spec.model.mla = config::MlaSpec{};
  CHECK_FALSE(lg::testing::fires(spec, "model.mla_vs_gqa"));  // Bridge
  spec.launch.framework = config::Framework::megatron_lm;
  const auto d = expect_finding(spec, "model.mla_vs_gqa", Severity::error,
                                "model.num_query_groups");
  CHECK(contains_text(d.message, "upstream: Group query attention is mutually exclusive with "
                                 "multi latent attention."));
}

TEST_CASE("parallelism.sizes_positive: tp = 0")
{
  auto spec = llama3_70b_sft();
  spec.parallelism.tp = 0;
  const auto d = expect_finding(spec, "parallelism.sizes_positive", Severity::error,
                                "parallelism");
  CHECK(contains_text(d.message, "tp 0"));
}

TEST_CASE("parallelism.world_size: 24 GPUs with TP4 PP4")
{
  auto spec = llama3_70b_sft();
  spec.cluster.nodes = 3;
  const auto d = expect_finding(spec, "parallelism.world_size", Severity::error, "cluster.nodes");
  CHECK(contains_text(d.message, "upstream: world size (24) is not divisible by total_model_size "
                                 "(total_model_size=16)"));
  CHECK(contains_text(d.fix, "cluster.nodes = 4"));
}

TEST_CASE("parallelism.expert_world_size: etp*ep*pp does not divide the world")
{
  auto spec = lg::testing::moe_spec();
  spec.parallelism.ep = 16;  // etp 2 * ep 16 = 32 > 16 GPUs
  const auto d = expect_finding(spec, "parallelism.expert_world_size", Severity::error,
                                "parallelism.ep");
  CHECK(contains_text(d.message, "upstream: world_size (16) is not divisible by "
                                 "expert_tensor_model_pipeline_parallel size (32)"));
  CHECK(contains_text(d.fix, "pp*lcm(tp*cp, ep*etp) = 32 GPUs"));
}

TEST_CASE("parallelism.heads_divisible_by_tp: 64 heads, tp 3")
{
  auto spec = llama3_70b_sft();
  spec.parallelism.tp = 3;
  spec.cluster.nodes = 6;  // 48 GPUs: divisible by tp*pp = 12
  const auto d = expect_finding(spec, "parallelism.heads_divisible_by_tp", Severity::error,
                                "parallelism.tp");
  CHECK(contains_text(d.message, "upstream: num_attention_heads (64) must be a multiple of "
                                 "tensor_model_parallel_size (3)."));
}

TEST_CASE("parallelism.query_groups_vs_tp: 8 groups with tp 16 is fine, 6 groups with tp 4 is not")
{
  auto spec = llama3_70b_sft();
  spec.model.num_query_groups = 6;
  spec.model.num_attention_heads = 48;
  const auto d = expect_finding(spec, "parallelism.query_groups_vs_tp", Severity::error,
                                "parallelism.tp");
  CHECK(contains_text(d.message, "upstream: num_query_groups (6) must be a multiple or divisor "
                                 "of tensor_model_parallel_size (4)."));
  auto ok = llama3_70b_sft();
  ok.parallelism.tp = 16;
  ok.parallelism.pp = 2;
  ok.parallelism.vpp.reset();
  CHECK_FALSE(lg::testing::fires(ok, "parallelism.query_groups_vs_tp"));
}

TEST_CASE("parallelism.layers_divisible_by_pp: 81 layers on pp 4")
{
  auto spec = llama3_70b_sft();
  spec.model.num_layers = 81;
  spec.parallelism.vpp.reset();
  const auto d = expect_finding(spec, "parallelism.layers_divisible_by_pp", Severity::error,
                                "parallelism.pp");
  CHECK(contains_text(d.message, "upstream: Number of layers should be divisible by the "
                                 "pipeline-model-parallel size"));
  CHECK(contains_text(d.fix, "set pp = 3"));
}

TEST_CASE("parallelism.uneven_pp_positive: first stage 0 layers")
{
  auto spec = llama3_70b_sft();
  spec.parallelism.vpp.reset();
  spec.parallelism.first_stage_layers = 0;
  const auto d = expect_finding(spec, "parallelism.uneven_pp_positive", Severity::error,
                                "parallelism.first_stage_layers");
  CHECK(contains_text(d.message, "upstream: ValueError: num_layers_in_first_pipeline_stage must "
                                 "be larger than 0"));
}

TEST_CASE("parallelism.uneven_pp_middle: remaining layers do not split")
{
  auto spec = llama3_70b_sft();
  spec.parallelism.vpp.reset();
  spec.parallelism.first_stage_layers = 19;
  spec.parallelism.last_stage_layers = 20;  // 41 layers over 2 middle stages
  const auto d = expect_finding(spec, "parallelism.uneven_pp_middle", Severity::error,
                                "parallelism.first_stage_layers");
  CHECK(contains_text(d.message, "upstream: number of layers at middle stage: 41 must be "
                                 "divisible by the middle pipeline model parallel size 2"));
  spec.parallelism.pp = 2;  // 41 layers left, no middle stage
  const auto m = expect_finding(spec, "parallelism.uneven_pp_middle", Severity::error,
                                "parallelism.first_stage_layers");
  CHECK(contains_text(m.message, "upstream: Mismatch: 41 middle layers remaining but 0 middle PP "
                                 "stages available."));
}

TEST_CASE("parallelism.batch_positive: micro_batch_size 0")
{
  auto spec = llama3_70b_sft();
  spec.training.micro_batch_size = 0;
  expect_finding(spec, "parallelism.batch_positive", Severity::error, "training.micro_batch_size");
}

TEST_CASE("parallelism.gbs_divisible: gbs 33 with mbs 1 dp 2")
{
  auto spec = llama3_70b_sft();
  spec.training.global_batch_size = 33;
  const auto d = expect_finding(spec, "parallelism.gbs_divisible", Severity::error,
                                "training.global_batch_size");
  CHECK(contains_text(d.message, "upstream: global batch size (33) is not divisible by micro "
                                 "batch size (1) times data parallel size (2)"));
  CHECK(contains_text(d.fix, "global_batch_size = 34"));
}

TEST_CASE("parallelism.tp_within_nvlink: tp 16 on 8-GPU NVLink domains")
{
  auto spec = llama3_70b_sft();
  spec.parallelism.tp = 16;
  spec.parallelism.pp = 2;
  spec.parallelism.vpp.reset();
  const auto d = expect_finding(spec, "parallelism.tp_within_nvlink", Severity::advice,
                                "parallelism.tp");
  CHECK(contains_text(d.message, "TP across nodes is almost always a performance loss."));
}

TEST_SUITE_END();
