// Hugging Face config.json -> ModelSpec. Field names: transformers'
// configuration_<arch>.py; per-architecture fixes: Megatron-Bridge
// src/megatron/bridge/models/*/*_bridge.py (see config/hf_config.cpp).
#include "config/hf_config.hpp"
#include "config/loader.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

std::string hf_error(const std::string& text)
{
  lg::config::JobSpec spec;
  try {
    lg::config::apply_hf_config_text(spec, text, "config.json");
  } catch (const lg::InputError& e) {
    return std::string(e.what()) + (e.hint.empty() ? "" : " | hint: " + e.hint);
  }
  return "no error";
}

const char* k_llama = R"({
  "architectures": ["LlamaForCausalLM"],
  "hidden_size": 2048,
  "intermediate_size": 8192,
  "num_attention_heads": 32,
  "num_key_value_heads": 8,
  "num_hidden_layers": 16,
  "vocab_size": 128256,
  "max_position_embeddings": 131072,
  "tie_word_embeddings": true
})";

} // namespace

TEST_SUITE_BEGIN("config");

TEST_CASE("hf config: Llama 3.2 1B fields land in the model, each located")
{
  lg::config::JobSpec spec;
  lg::config::apply_hf_config_text(spec, k_llama, "config.json");
  CHECK(spec.model.num_layers == 16);
  CHECK(spec.model.num_query_groups == 8);
  CHECK(spec.model.kv_channels == 64);
  CHECK_FALSE(spec.model.untie_embeddings_and_output_weights);
  CHECK(spec.model.max_position_embeddings == 131072);
  CHECK(spec.model.seq_length == 4096);  // the job's, not max_position_embeddings
  CHECK(spec.model.activation == lg::config::Activation::swiglu);
  REQUIRE(spec.location_of("model.num_layers").has_value());
  CHECK(spec.location_of("model.num_layers")->line == 7);
  CHECK(spec.location_of("model.num_layers")->column == 3);
  CHECK(spec.input_findings.empty());
}

TEST_CASE("hf config: malformed JSON is located at its line and column")
{
  const std::string error = hf_error("{\n  \"hidden_size\": 4096,\n  \"num_hidden_layers\": 32\n  \"vocab_size\": 1\n}");
  CHECK(error.find("config.json:4:14: invalid JSON: syntax error while parsing object") == 0);
  CHECK(hf_error("[1, 2]").find("config.json: a Hugging Face config.json is a JSON object, got array") == 0);
  CHECK(hf_error("").find("config.json:1:1: invalid JSON") == 0);
}

TEST_CASE("hf config: an unknown architecture names the field; a not-modelled one says why")
{
  CHECK(hf_error("{\n \"architectures\": [\"FalconForCausalLM\"], \"hidden_size\": 1}")
          .find("config.json:2:2: unknown Hugging Face architecture (\"architectures\": [\"FalconForCausalLM\"]) | hint: "
                "known: LlamaForCausalLM") == 0);
  CHECK(hf_error(R"({"architectures": ["NemotronHForCausalLM"]})")
          .find("config.json: architecture NemotronHForCausalLM is not modelled: Nemotron-H interleaves Mamba-2 layers") == 0);
  CHECK(hf_error(R"({"hidden_size": 8})").find("no \"architectures\" or \"model_type\" field") != std::string::npos);
}

TEST_CASE("hf config: a missing or mistyped field names the field and the file")
{
  CHECK(hf_error(R"({"model_type": "qwen3", "hidden_size": 4096, "num_attention_heads": 32,
                    "num_hidden_layers": 36, "vocab_size": 151936})")
          .find("config.json: the field \"intermediate_size\" is required for this architecture but missing") == 0);
  const std::string typed = hf_error("{\"architectures\": [\"MixtralForCausalLM\"], \"hidden_size\": 4096,\n"
                                     "\"intermediate_size\": 14336, \"num_attention_heads\": 32, \"num_hidden_layers\": \"32\",\n"
                                     "\"vocab_size\": 32000, \"num_experts_per_tok\": 2}");
  CHECK(typed.find("config.json:2:56: \"num_hidden_layers\" must be an integer, got \"32\"") == 0);
  CHECK(typed.find("\"num_local_experts\" is required") != std::string::npos);
}

TEST_CASE("hf config: fields read but not usable are warnings, not silence")
{
  lg::config::JobSpec spec;
  lg::config::apply_hf_config_text(spec, R"({"architectures": ["MistralForCausalLM"], "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
    "vocab_size": 32000, "sliding_window": 4096})", "config.json");
  REQUIRE(spec.input_findings.size() == 1);
  CHECK(spec.input_findings[0].severity == lg::Severity::warning);
  CHECK(spec.input_findings[0].message.find("sliding_window = 4096") != std::string::npos);
  REQUIRE(spec.input_findings[0].where.has_value());
  CHECK(spec.input_findings[0].where->line == 3);
}

TEST_CASE("hf config: Gemma 3's text_config is the language model; its vision tower is a warning")
{
  lg::config::JobSpec spec;
  lg::config::apply_hf_config_text(spec, R"({"architectures": ["Gemma3ForConditionalGeneration"],
    "text_config": {"hidden_size": 2560, "intermediate_size": 10240, "num_attention_heads": 8,
                    "num_key_value_heads": 4, "head_dim": 256, "num_hidden_layers": 34, "vocab_size": 262208,
                    "hidden_activation": "gelu_pytorch_tanh"},
    "vision_config": {"hidden_size": 1152}})", "config.json");
  CHECK(spec.model.num_layers == 34);
  CHECK(spec.model.kv_channels == 256);
  CHECK(spec.model.activation == lg::config::Activation::geglu);
  CHECK(spec.model.qk_layernorm);
  CHECK_FALSE(spec.model.untie_embeddings_and_output_weights);  // Gemma ties by default
  CHECK(spec.input_findings.size() == 2);
  REQUIRE(spec.location_of("model.num_layers").has_value());
  CHECK(spec.location_of("model.num_layers")->line == 3);
}

TEST_CASE("hf config: DeepSeek first_k_dense_replace, shared experts and MTP")
{
  lg::config::JobSpec spec;
  lg::config::apply_hf_config_text(spec, R"({"architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 1024,
    "intermediate_size": 4096, "moe_intermediate_size": 256, "num_attention_heads": 8, "num_hidden_layers": 5,
    "n_routed_experts": 16, "n_shared_experts": 2, "num_experts_per_tok": 4, "first_k_dense_replace": 2,
    "q_lora_rank": null, "kv_lora_rank": 128, "qk_nope_head_dim": 64, "qk_rope_head_dim": 32, "v_head_dim": 64,
    "vocab_size": 1280, "num_nextn_predict_layers": 1})", "config.json");
  REQUIRE(spec.model.moe.has_value());
  CHECK(spec.model.moe->layer_pattern == std::vector<int>{0, 0, 1, 1, 1});
  CHECK(spec.model.moe->shared_expert_intermediate_size == 512);
  CHECK(spec.model.moe->router_bias);
  REQUIRE(spec.model.mla.has_value());
  CHECK(spec.model.mla->q_lora_rank == 0);
  CHECK(spec.model.mtp_num_layers == 1);
  CHECK(spec.model.make_vocab_size_divisible_by == 1280);
}

TEST_CASE("hf config: [model] hf_config in a job file (a model directory, relative to the job), job keys override")
{
  const fs::path dir = fs::temp_directory_path() / "lg-test-hf-job";
  fs::create_directories(dir / "llama");
  std::ofstream(dir / "llama" / "config.json") << k_llama;
  lg::config::LoadOptions options;
  options.preset_dirs = {fs::path(LG_SOURCE_DIR) / "presets"};
  std::ofstream(dir / "job.toml") << "[model]\nhf_config = \"llama\"\nnum_layers = 8\nseq_length = 2048\n";
  const auto spec = lg::config::load_job_file(dir / "job.toml", options);
  CHECK(spec.model.num_layers == 8);
  CHECK(spec.model.hidden_size == 2048);
  CHECK(spec.model.seq_length == 2048);
  CHECK(spec.location_of("model.num_layers")->file == (dir / "job.toml").string());
  CHECK(spec.location_of("model.hidden_size")->file == (dir / "llama" / "config.json").string());
  // A bad path is reported at the key, with the reason.
  std::ofstream(dir / "bad.toml") << "[model]\nhf_config = \"nowhere\"\n";
  CHECK_THROWS_WITH_AS(lg::config::load_job_file(dir / "bad.toml", options),
                       doctest::Contains("bad.toml:2:13: cannot read Hugging Face config"), lg::InputError);
  fs::remove_all(dir);
}

TEST_SUITE_END();
