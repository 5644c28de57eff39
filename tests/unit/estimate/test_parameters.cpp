// Parameter totals of published models, built from their published configs.
#include "estimate/parameters.hpp"

#include <doctest/doctest.h>

namespace {

using lg::config::ModelSpec;

ModelSpec dense(int layers, int h, int ffn, int heads, int groups, std::int64_t vocab)
{
  ModelSpec m;
  m.num_layers = layers;
  m.hidden_size = h;
  m.ffn_hidden_size = ffn;
  m.num_attention_heads = heads;
  m.num_query_groups = groups;
  m.vocab_size = vocab;
  return m;
}

ModelSpec moe(ModelSpec m, int experts, int topk, int expert_ffn)
{
  lg::config::MoeSpec e;
  e.num_experts = experts;
  e.router_topk = topk;
  e.moe_ffn_hidden_size = expert_ffn;
  m.moe = e;
  return m;
}

double total(const ModelSpec& m)
{
  return static_cast<double>(lg::estimate::count_parameters(m, m.vocab_size).total);
}

double active(const ModelSpec& m)
{
  return static_cast<double>(lg::estimate::count_parameters(m, m.vocab_size).active);
}

ModelSpec qwen3_moe(int layers, int heads, int expert_ffn)
{
  auto m = moe(dense(layers, layers == 48 ? 2048 : 4096, 0, heads, 4, 151936), 128, 8, expert_ffn);
  m.kv_channels = 128;
  m.qk_layernorm = true;
  return m;
}

ModelSpec deepseek_v3()
{
  auto m = moe(dense(61, 7168, 18432, 128, 128, 129280), 256, 8, 2048);
  m.moe->shared_expert_intermediate_size = 2048;
  m.moe->router_bias = true;
  m.moe->layer_pattern = std::vector<int>(61, 1);
  for (int i = 0; i < 3; ++i) {
    m.moe->layer_pattern[static_cast<std::size_t>(i)] = 0;
  }
  lg::config::MlaSpec mla;
  mla.q_lora_rank = 1536;
  mla.kv_lora_rank = 512;
  mla.qk_head_dim = 128;
  mla.qk_pos_emb_head_dim = 64;
  mla.v_head_dim = 128;
  m.mla = mla;
  return m;
}

} // namespace

TEST_SUITE_BEGIN("estimate");

TEST_CASE("parameters: dense Llama3 and Qwen3 totals match published counts within 0.5%")
{
  CHECK(total(dense(32, 4096, 14336, 32, 8, 128256)) == doctest::Approx(8.03e9).epsilon(0.005));
  CHECK(total(dense(80, 8192, 28672, 64, 8, 128256)) == doctest::Approx(70.55e9).epsilon(0.005));
  CHECK(total(dense(126, 16384, 53248, 128, 8, 128256)) ==
        doctest::Approx(405.85e9).epsilon(0.005));
  auto qwen3_8b = dense(36, 4096, 12288, 32, 8, 151936);
  qwen3_8b.kv_channels = 128;
  qwen3_8b.qk_layernorm = true;
  CHECK(total(qwen3_8b) == doctest::Approx(8.19e9).epsilon(0.005));
}

TEST_CASE("parameters: Nemotron-4 340B (squared ReLU, LayerNorm)")
{
  auto m = dense(96, 18432, 73728, 96, 8, 256000);
  m.activation = lg::config::Activation::squared_relu;
  m.normalization = lg::config::Normalization::layer_norm;
  CHECK(total(m) == doctest::Approx(341e9).epsilon(0.005));
}

TEST_CASE("parameters: MoE totals and active counts")
{
  const auto q30 = qwen3_moe(48, 32, 768);
  CHECK(total(q30) == doctest::Approx(30.53e9).epsilon(0.005));
  CHECK(active(q30) == doctest::Approx(3.34e9).epsilon(0.005));
  const auto q235 = qwen3_moe(94, 64, 1536);
  CHECK(total(q235) == doctest::Approx(235.09e9).epsilon(0.005));
  CHECK(active(q235) == doctest::Approx(22.1e9).epsilon(0.005));
  const auto mixtral = moe(dense(32, 4096, 14336, 32, 8, 32000), 8, 2, 14336);
  CHECK(total(mixtral) == doctest::Approx(46.7e9).epsilon(0.005));
  CHECK(active(mixtral) == doctest::Approx(12.9e9).epsilon(0.005));
}

TEST_CASE("parameters: GPT-OSS-120B with biases")
{
  auto m = moe(dense(36, 2880, 2880, 64, 8, 201088), 128, 4, 2880);
  m.kv_channels = 64;
  m.add_bias_linear = true;
  m.moe->router_bias = true;
  CHECK(total(m) == doctest::Approx(116.8e9).epsilon(0.005));
}

TEST_CASE("parameters: DeepSeek-V3 is 671B, 685B with its MTP module")
{
  auto m = deepseek_v3();
  CHECK(total(m) == doctest::Approx(671e9).epsilon(0.005));
  m.mtp_num_layers = 1;
  CHECK(total(m) == doctest::Approx(685e9).epsilon(0.005));
  // An MTP layer copies the last (MoE) layer and adds eh_proj 2h*h.
  const auto mtp = lg::estimate::mtp_extra_parameters(m);
  CHECK(mtp.mlp == 2LL * 7168 * 7168);
}

TEST_CASE("parameters: learned position embeddings and tied embeddings")
{
  auto m = dense(2, 512, 2048, 8, 8, 50304);
  m.untie_embeddings_and_output_weights = false;
  const double tied = total(m);
  m.untie_embeddings_and_output_weights = true;
  CHECK(total(m) - tied == doctest::Approx(50304.0 * 512));
  m.position_embedding_type = "learned_absolute";
  m.max_position_embeddings = 1024;
  CHECK(lg::estimate::position_embedding_parameters(m) == 1024 * 512);
}

TEST_SUITE_END();
