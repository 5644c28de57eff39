// Every shipped model preset, read instead from the model's own Hugging Face
// config.json (written here from the published dimensions: the config.json of
// each model's Hugging Face repository named in the preset's header; no hub
// download), gives the same parameter count and the same memory estimate.
#include "config/loader.hpp"
#include "estimate/estimate.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace {

namespace fs = std::filesystem;

// model preset -> its config.json (fields as the Hugging Face repository has them).
const std::map<std::string, std::string>& configs()
{
  static const std::map<std::string, std::string> c = {
    {"llama3-8b", R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
      "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
      "vocab_size": 128256, "max_position_embeddings": 8192, "rope_theta": 500000.0, "rms_norm_eps": 1e-05,
      "hidden_act": "silu", "tie_word_embeddings": false, "attention_bias": false, "torch_dtype": "bfloat16"})"},
    {"llama3.1-8b", R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
      "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
      "vocab_size": 128256, "max_position_embeddings": 131072, "mlp_bias": false, "hidden_act": "silu",
      "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                       "original_max_position_embeddings": 8192, "rope_type": "llama3"},
      "tie_word_embeddings": false})"},
    {"llama3-70b", R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8192,
      "intermediate_size": 28672, "num_attention_heads": 64, "num_key_value_heads": 8, "num_hidden_layers": 80,
      "vocab_size": 128256, "max_position_embeddings": 8192, "hidden_act": "silu", "tie_word_embeddings": false})"},
    {"llama3.1-70b", R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8192,
      "intermediate_size": 28672, "num_attention_heads": 64, "num_key_value_heads": 8, "num_hidden_layers": 80,
      "vocab_size": 128256, "max_position_embeddings": 131072, "hidden_act": "silu", "tie_word_embeddings": false,
      "rope_scaling": {"factor": 8.0, "rope_type": "llama3"}})"},
    {"llama3.1-405b", R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 16384,
      "intermediate_size": 53248, "num_attention_heads": 128, "num_key_value_heads": 8, "num_hidden_layers": 126,
      "vocab_size": 128256, "max_position_embeddings": 131072, "hidden_act": "silu", "tie_word_embeddings": false})"},
    {"qwen3-8b", R"({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 4096,
      "intermediate_size": 12288, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
      "num_hidden_layers": 36, "vocab_size": 151936, "max_position_embeddings": 40960, "attention_bias": false,
      "hidden_act": "silu", "tie_word_embeddings": false, "use_sliding_window": false, "sliding_window": null})"},
    {"qwen3-32b", R"({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 5120,
      "intermediate_size": 25600, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128,
      "num_hidden_layers": 64, "vocab_size": 151936, "max_position_embeddings": 40960, "hidden_act": "silu",
      "tie_word_embeddings": false})"},
    {"qwen3-30b-a3b", R"({"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 2048,
      "intermediate_size": 6144, "moe_intermediate_size": 768, "num_attention_heads": 32, "num_key_value_heads": 4,
      "head_dim": 128, "num_hidden_layers": 48, "num_experts": 128, "num_experts_per_tok": 8,
      "decoder_sparse_step": 1, "mlp_only_layers": [], "norm_topk_prob": true, "vocab_size": 151936,
      "max_position_embeddings": 40960, "tie_word_embeddings": false})"},
    {"qwen3-235b-a22b", R"({"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 4096,
      "intermediate_size": 12288, "moe_intermediate_size": 1536, "num_attention_heads": 64, "num_key_value_heads": 4,
      "head_dim": 128, "num_hidden_layers": 94, "num_experts": 128, "num_experts_per_tok": 8,
      "decoder_sparse_step": 1, "mlp_only_layers": [], "vocab_size": 151936, "max_position_embeddings": 40960,
      "tie_word_embeddings": false})"},
    {"gpt-oss-120b", R"({"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "hidden_size": 2880,
      "intermediate_size": 2880, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
      "num_hidden_layers": 36, "num_local_experts": 128, "num_experts_per_tok": 4, "experts_per_token": 4,
      "vocab_size": 201088, "max_position_embeddings": 131072, "attention_bias": true, "sliding_window": 128,
      "layer_types": ["sliding_attention", "full_attention"], "tie_word_embeddings": false,
      "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": 4096}})"},
    {"deepseek-v3", R"({"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "hidden_size": 7168,
      "intermediate_size": 18432, "moe_intermediate_size": 2048, "num_attention_heads": 128,
      "num_key_value_heads": 128, "num_hidden_layers": 61, "n_routed_experts": 256, "n_shared_experts": 1,
      "num_experts_per_tok": 8, "first_k_dense_replace": 3, "moe_layer_freq": 1, "q_lora_rank": 1536,
      "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
      "vocab_size": 129280, "max_position_embeddings": 163840, "num_nextn_predict_layers": 1,
      "topk_method": "noaux_tc", "scoring_func": "sigmoid", "tie_word_embeddings": false,
      "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096}})"},
    {"deepseek-v2-lite", R"({"architectures": ["DeepseekV2ForCausalLM"], "model_type": "deepseek_v2",
      "hidden_size": 2048, "intermediate_size": 10944, "moe_intermediate_size": 1408, "num_attention_heads": 16,
      "num_key_value_heads": 16, "num_hidden_layers": 27, "n_routed_experts": 64, "n_shared_experts": 2,
      "num_experts_per_tok": 6, "first_k_dense_replace": 1, "moe_layer_freq": 1, "q_lora_rank": null,
      "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
      "vocab_size": 102400, "max_position_embeddings": 163840, "topk_method": "greedy",
      "tie_word_embeddings": false})"},
    {"moonlight-16b-a3b", R"({"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
      "hidden_size": 2048, "intermediate_size": 11264, "moe_intermediate_size": 1408, "num_attention_heads": 16,
      "num_key_value_heads": 16, "num_hidden_layers": 27, "n_routed_experts": 64, "n_shared_experts": 2,
      "num_experts_per_tok": 6, "first_k_dense_replace": 1, "moe_layer_freq": 1, "q_lora_rank": null,
      "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
      "vocab_size": 163840, "max_position_embeddings": 8192, "tie_word_embeddings": false})"},
    {"mixtral-8x7b", R"({"architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "hidden_size": 4096,
      "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
      "num_local_experts": 8, "num_experts_per_tok": 2, "vocab_size": 32000, "max_position_embeddings": 32768,
      "sliding_window": null, "tie_word_embeddings": false})"},
    {"mixtral-8x22b", R"({"architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "hidden_size": 6144,
      "intermediate_size": 16384, "num_attention_heads": 48, "num_key_value_heads": 8, "num_hidden_layers": 56,
      "num_local_experts": 8, "num_experts_per_tok": 2, "vocab_size": 32000, "max_position_embeddings": 65536,
      "tie_word_embeddings": false})"},
    {"nemotron-4-340b", R"({"architectures": ["NemotronForCausalLM"], "model_type": "nemotron", "hidden_size": 18432,
      "intermediate_size": 73728, "num_attention_heads": 96, "num_key_value_heads": 8, "head_dim": 192,
      "num_hidden_layers": 96, "vocab_size": 256000, "max_position_embeddings": 4096, "hidden_act": "relu2",
      "norm_eps": 1e-05, "partial_rotary_factor": 0.5, "tie_word_embeddings": false})"},
  };
  return c;
}

} // namespace

TEST_SUITE_BEGIN("estimate");

TEST_CASE("hf config: every model preset's own config.json gives the preset's parameters and estimate")
{
  lg::config::LoadOptions options;
  options.preset_dirs = {fs::path(LG_SOURCE_DIR) / "presets"};
  const fs::path dir = fs::temp_directory_path() / "lg-test-hf-presets";
  fs::create_directories(dir);
  const auto presets = lg::config::list_presets(options, "models");
  REQUIRE(presets.size() >= 10);
  // The same job around either model: a realistic layout for all sizes.
  const std::string job = "[model]\nseq_length = 4096\n[parallelism]\ntp = 8\npp = 2\n[training]\n"
                          "global_batch_size = 64\n[cluster]\nnodes = 8\n";
  for (const auto& [name, path] : presets) {
    CAPTURE(name);
    const auto it = configs().find(name);
    REQUIRE_MESSAGE(it != configs().end(), "add the model's config.json to this test");
    const fs::path config = dir / (name + ".json");
    std::ofstream(config) << it->second;
    const auto from_preset =
      lg::config::load_job_text("[model]\npreset = \"" + name + "\"\n" + job.substr(8), "preset.toml", options);
    const auto from_hf =
      lg::config::load_job_text("[model]\nhf_config = \"" + config.string() + "\"\n" + job.substr(8), "hf.toml", options);
    const auto& a = from_preset.model;
    const auto& b = from_hf.model;
    CHECK(b.num_layers == a.num_layers);
    CHECK(b.hidden_size == a.hidden_size);
    CHECK(b.ffn_hidden_size == a.ffn_hidden_size);
    CHECK(b.num_attention_heads == a.num_attention_heads);
    CHECK(lg::config::num_query_groups(b) == lg::config::num_query_groups(a));
    CHECK(lg::config::kv_channels(b) == lg::config::kv_channels(a));
    CHECK(b.vocab_size == a.vocab_size);
    CHECK(lg::config::padded_vocab_size(from_hf) == lg::config::padded_vocab_size(from_preset));
    CHECK(b.max_position_embeddings == a.max_position_embeddings);
    CHECK(b.activation == a.activation);
    CHECK(b.normalization == a.normalization);
    CHECK(b.add_bias_linear == a.add_bias_linear);
    CHECK(b.add_qkv_bias == a.add_qkv_bias);
    CHECK(b.qk_layernorm == a.qk_layernorm);
    CHECK(b.untie_embeddings_and_output_weights == a.untie_embeddings_and_output_weights);
    CHECK(b.mtp_num_layers == a.mtp_num_layers);
    REQUIRE(b.moe.has_value() == a.moe.has_value());
    if (a.moe) {
      CHECK(b.moe->num_experts == a.moe->num_experts);
      CHECK(b.moe->moe_ffn_hidden_size == a.moe->moe_ffn_hidden_size);
      CHECK(b.moe->router_topk == a.moe->router_topk);
      CHECK(b.moe->shared_expert_intermediate_size == a.moe->shared_expert_intermediate_size);
      CHECK(b.moe->layer_pattern == a.moe->layer_pattern);
      CHECK(b.moe->router_bias == a.moe->router_bias);
    }
    REQUIRE(b.mla.has_value() == a.mla.has_value());
    if (a.mla) {
      CHECK(b.mla->q_lora_rank == a.mla->q_lora_rank);
      CHECK(b.mla->kv_lora_rank == a.mla->kv_lora_rank);
      CHECK(b.mla->qk_head_dim == a.mla->qk_head_dim);
      CHECK(b.mla->qk_pos_emb_head_dim == a.mla->qk_pos_emb_head_dim);
      CHECK(b.mla->v_head_dim == a.mla->v_head_dim);
    }
    const auto ea = lg::estimate::estimate(from_preset, {});
    const auto eb = lg::estimate::estimate(from_hf, {});
    CHECK(eb.parameters.total == ea.parameters.total);
    CHECK(eb.peak_bytes == ea.peak_bytes);
    CHECK(eb.verdict == ea.verdict);
  }
  fs::remove_all(dir);
}

TEST_SUITE_END();
