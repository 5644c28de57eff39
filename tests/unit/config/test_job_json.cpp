// config/job_json: a job as one JSON line (`check --jsonl`, `estimate
// --jsonl`), read through the job-file schema. The bad lines are the kinds a
// generator of variants writes by mistake; none may crash or pass unread.
#include "config/job_json.hpp"
#include "config/loader.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

namespace {

lg::config::LoadOptions job_json_presets()
{
  lg::config::LoadOptions options;
  options.preset_dirs = {std::filesystem::path(LG_SOURCE_DIR) / "presets"};
  return options;
}

std::string job_json_error(const std::string& line)
{
  try {
    lg::config::load_job_json(line, "<stdin>:7", job_json_presets());
  } catch (const lg::InputError& e) {
    return std::string(e.what()) + " | hint: " + e.hint;
  }
  return "no error";
}

} // namespace

TEST_SUITE_BEGIN("config");

TEST_CASE("job_json: a JSON object loads like the same job file")
{
  const auto from_json = lg::config::load_job_json(
    R"({"job": {"name": "j"}, "model": {"preset": "llama3-8b", "seq_length": 8192},)"
    R"( "parallelism": {"tp": 2, "sequence_parallel": true}, "training": {"precision": "bf16",)"
    R"( "recompute": {"granularity": "selective", "modules": ["core_attn"]}}, "env": {"NCCL_DEBUG": "WARN"}})",
    "<stdin>:1", job_json_presets());
  const auto from_toml = lg::config::load_job_text(
    "[job]\nname = \"j\"\n[model]\npreset = \"llama3-8b\"\nseq_length = 8192\n[parallelism]\ntp = 2\n"
    "sequence_parallel = true\n[training]\nprecision = \"bf16\"\n"
    "recompute = { granularity = \"selective\", modules = [\"core_attn\"] }\n[env]\nNCCL_DEBUG = \"WARN\"\n",
    "job.toml", job_json_presets());
  CHECK(from_json.name == "j");
  CHECK(from_json.model.num_layers == from_toml.model.num_layers);
  CHECK(from_json.model.seq_length == 8192);
  CHECK(from_json.parallelism.tp == 2);
  CHECK(from_json.parallelism.sequence_parallel);
  CHECK(from_json.training.precision == from_toml.training.precision);
  CHECK(from_json.training.recompute.modules == from_toml.training.recompute.modules);
  CHECK(from_json.env == from_toml.env);
  // The location of a key is the line: a JSON object has no TOML positions.
  REQUIRE(from_json.location_of("parallelism.tp").has_value());
  CHECK(from_json.location_of("parallelism.tp")->file == "<stdin>:1");
  CHECK(from_json.location_of("parallelism.tp")->line == 0);
}

TEST_CASE("job_json: schema errors name the line and the key, with the schema's hint")
{
  const std::string typo = job_json_error(R"({"model": {"preset": "llama3-8b"}, "parallelism": {"ppp": 2}})");
  CHECK(typo.find("<stdin>:7: unknown key 'ppp' in [parallelism]") != std::string::npos);
  CHECK(typo.find("did you mean 'pp'?") != std::string::npos);
  const std::string type = job_json_error(R"({"model": {"preset": "llama3-8b"}, "parallelism": {"tp": "four"}})");
  CHECK(type.find("<stdin>:7: parallelism.tp must be an integer, got string \"four\"") != std::string::npos);
  const std::string fraction = job_json_error(R"({"model": {"preset": "llama3-8b"}, "parallelism": {"tp": 2.5}})");
  CHECK(fraction.find("parallelism.tp must be an integer") != std::string::npos);
}

TEST_CASE("job_json: text that is not a job object is an input error with the column")
{
  const std::string broken = job_json_error(R"({"model": {"preset": "llama3-8b"}, )");
  CHECK(broken.find("<stdin>:7:") == 0);
  CHECK(broken.find("invalid JSON") != std::string::npos);
  CHECK(broken.find("hint: write one job per line as a JSON object") != std::string::npos);
  CHECK(job_json_error("[1, 2]").find("<stdin>:7: a job must be a JSON object, got array") == 0);
  CHECK(job_json_error("\"job.toml\"").find("a job must be a JSON object, got string") != std::string::npos);
  CHECK(job_json_error(R"({"parallelism": {"tp": null}})").find("<stdin>:7: parallelism.tp: null is not a value") == 0);
  CHECK(job_json_error(R"({"parallelism": {"tp": 18446744073709551615}})").find("parallelism.tp: integer 18446744073709551615 is out of range") !=
        std::string::npos);
  CHECK(job_json_error("{\"job\": {\"name\": \"\xff\"}}").find("invalid JSON") != std::string::npos);
}

TEST_CASE("job_json: nesting is refused before parsing, brackets in strings do not count")
{
  const std::string deep = "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  const std::string message = job_json_error(deep);
  // 64 levels: the object and 63 arrays; the 65th bracket is at column 70.
  CHECK(message.find("<stdin>:7:70: nested more than 64 levels") == 0);
  const std::string quoted = "{\"job\": {\"name\": \"" + std::string(200, '[') + "\"}, \"model\": {\"preset\": \"llama3-8b\"}}";
  CHECK(lg::config::load_job_json(quoted, "<stdin>:1", job_json_presets()).name == std::string(200, '['));
}

TEST_SUITE_END();
