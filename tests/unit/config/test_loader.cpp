#include "config/loader.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

namespace {

lg::config::LoadOptions shipped()
{
  lg::config::LoadOptions options;
  options.preset_dirs = {std::filesystem::path(LG_SOURCE_DIR) / "presets"};
  return options;
}

std::string load_error(const std::string& text)
{
  try {
    lg::config::load_job_text(text, "job.toml", shipped());
  } catch (const lg::InputError& e) {
    return std::string(e.what()) + (e.hint.empty() ? "" : " | hint: " + e.hint);
  }
  return "no error";
}

const char* k_model = R"(
[model]
num_layers = 4
hidden_size = 1024
ffn_hidden_size = 4096
num_attention_heads = 16
vocab_size = 32000
)";

} // namespace

TEST_SUITE_BEGIN("config");

TEST_CASE("loader: a full model without preset loads with locations")
{
  const auto spec = lg::config::load_job_text(std::string(k_model) + "[parallelism]\ntp = 2\n", "job.toml", shipped());
  CHECK(spec.model.num_layers == 4);
  CHECK(spec.parallelism.tp == 2);
  REQUIRE(spec.location_of("parallelism.tp").has_value());
  CHECK(spec.location_of("parallelism.tp")->line == 9);
  CHECK(spec.location_of("parallelism.tp")->column == 1);
  CHECK(spec.cluster.gpu_info.capacity_bytes > 70LL * 1024 * 1024 * 1024);
}

TEST_CASE("loader: an unknown key gets file:line:column and a did-you-mean")
{
  CHECK(load_error(std::string(k_model) + "[parallelism]\ntensor_parallel = 2\nppp = 4\n")
        == "job.toml:9:1: unknown key 'tensor_parallel' in [parallelism]\n"
           "job.toml:10:1: unknown key 'ppp' in [parallelism] (did you mean 'pp'?) | hint: known keys in [parallelism]: "
           "cp, ep, etp, first_stage_layers, last_stage_layers, pp, sequence_parallel, tp, vpp");
}

TEST_CASE("loader: wrong types, ranges and enums say what was expected and found")
{
  CHECK(load_error(std::string(k_model) + "[cluster]\nnodes = \"four\"\n")
        == "job.toml:9:9: cluster.nodes must be an integer, got string \"four\" | hint: write nodes = 1");
  CHECK(load_error(std::string(k_model) + "[parallelism]\ntp = 0\n")
        == "job.toml:9:6: parallelism.tp must be between 1 and 1024, got 0");
  CHECK(load_error(std::string(k_model) + "[training]\nprecision = \"fp8_csx\"\n").starts_with(
    "job.toml:9:13: training.precision must be one of \"bf16\", \"fp16\", \"fp8-delayed\", \"fp8-cs\""));
}

TEST_CASE("loader: an unknown section suggests the nearest one")
{
  CHECK(load_error(std::string(k_model) + "[paralelism]\ntp = 2\n")
        == "job.toml:8:1: unknown section [paralelism] | hint: did you mean [parallelism]?");
}

TEST_CASE("loader: TOML syntax errors carry the location")
{
  CHECK(load_error("[model\nnum_layers = 2\n").starts_with("job.toml:1:"));
}

TEST_CASE("loader: a missing model key names the key and the preset alternative")
{
  CHECK(load_error("[model]\nnum_layers = 4\n").starts_with("job.toml:1:1: model.hidden_size is required"));
}

TEST_CASE("loader: a model preset fills the model and job keys override it")
{
  const auto spec = lg::config::load_job_text("[model]\npreset = \"llama3-70b\"\nseq_length = 8192\n", "job.toml", shipped());
  CHECK(spec.model.num_layers == 80);
  CHECK(spec.model.hidden_size == 8192);
  CHECK(spec.model.seq_length == 8192);
  CHECK(spec.location_of("model.seq_length")->file == "job.toml");
  CHECK(spec.location_of("model.hidden_size")->file.ends_with("llama3-70b.toml"));
}

TEST_CASE("loader: unknown presets suggest a near name")
{
  CHECK(load_error("[model]\npreset = \"llama3-70\"\n").find("did you mean 'llama3-70b'?") != std::string::npos);
  CHECK(load_error(std::string(k_model) + "[cluster]\ngpu = \"h100\"\n").starts_with("job.toml:9:1: unknown GPU preset 'h100'"));
}

TEST_CASE("loader: env values keep file order")
{
  const auto spec = lg::config::load_job_text(std::string(k_model) + "[env]\nB = \"1\"\nA = 2\n", "job.toml", shipped());
  REQUIRE(spec.env.size() == 2);
  CHECK(spec.env[0] == std::pair<std::string, std::string>("B", "1"));
  CHECK(spec.env[1] == std::pair<std::string, std::string>("A", "2"));
}

TEST_CASE("loader: moe layer_freq integer expands to a per-layer pattern")
{
  const auto spec = lg::config::load_job_text(std::string(k_model) + "[model.moe]\nnum_experts = 8\nmoe_ffn_hidden_size = 512\nlayer_freq = 2\n", "job.toml", shipped());
  REQUIRE(spec.model.moe.has_value());
  CHECK(spec.model.moe->layer_pattern == std::vector<int>{1, 0, 1, 0});
}

TEST_CASE("loader: recompute as an inline table")
{
  const auto spec = lg::config::load_job_text(std::string(k_model) + "[training]\nrecompute = { granularity = \"full\", method = \"block\", num_layers = 2 }\n", "job.toml", shipped());
  CHECK(spec.training.recompute.granularity == lg::config::RecomputeGranularity::full);
  CHECK(spec.training.recompute.method == lg::config::RecomputeMethod::block);
  CHECK(spec.training.recompute.num_layers == 2);
}

TEST_SUITE_END();

TEST_CASE("loader: a 50,000-level table header is an input error, not a stack overflow")
{
  // Issue 10: toml++ recursed once per level and overflowed (SIGSEGV).
  std::string text = "[a";
  for (int i = 0; i < 50000; ++i) {
    text += ".a";
  }
  text += "]\n";
  CHECK(load_error(text).find("job.toml:1:") == 0);
  CHECK(load_error(text).find("nested more than 64 levels") != std::string::npos);
}

TEST_CASE("loader: 100,000 [env] keys load, in file order, without a quadratic search")
{
  // Issue 10: each key searched all earlier ones (1e6 keys never finished).
  std::string text = "[model]\npreset = \"llama3-8b\"\n[env]\n";
  for (int i = 0; i < 100000; ++i) {
    text += "K" + std::to_string(i) + " = \"v\"\n";
  }
  const auto spec = lg::config::load_job_text(text, "job.toml", shipped());
  CHECK(spec.env.size() == 100000);
}
