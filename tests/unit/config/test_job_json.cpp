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
    lg::config::load_job_json(line, "<stdin>", 7, job_json_presets());
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
    "<stdin>", 1, job_json_presets());
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
}

TEST_CASE("job_json: a key is located at its column on the line, the whole job at the line")
{
  // Issue 10: every finding of a JSON-line job was placed at the line alone
  // (file "<stdin>:1", line 0), whatever key it was about.
  const std::string line =
    R"({"model": {"preset": "llama3-8b"}, "parallelism": {"tp": 2}, "env": {"NCCL_DEBUG": "WARN"}})";
  const auto spec = lg::config::load_job_json(line, "jobs.jsonl", 4, job_json_presets());
  const auto column_of = [&](const std::string& quoted) { return static_cast<int>(line.find(quoted)) + 1; };
  const auto tp = spec.location_of("parallelism.tp");
  REQUIRE(tp.has_value());
  CHECK(tp->file == "jobs.jsonl");
  CHECK(tp->line == 4);
  CHECK(tp->column == column_of("\"tp\""));
  CHECK(spec.location_of("env.NCCL_DEBUG")->column == column_of("\"NCCL_DEBUG\""));
  CHECK(spec.location_of("parallelism")->column == column_of("\"parallelism\""));
  // A key the line does not set: its section's place, else the line itself
  // (no column: nothing on the line is to blame).
  CHECK(spec.location_of("parallelism.pp")->column == column_of("\"parallelism\""));
  const auto whole = spec.location_of("training.global_batch_size");
  REQUIRE(whole.has_value());
  CHECK(whole->file == "jobs.jsonl");
  CHECK(whole->line == 4);
  CHECK(whole->column == 0);
}

TEST_CASE("job_json: [env] keeps the JSON object's order, as a job file keeps its own")
{
  // Issue 10: the variables came out sorted by name (nlohmann's and toml++'s
  // maps), so `check --jsonl` composed a different script than the same job
  // file; order matters for values that name earlier variables.
  const auto spec = lg::config::load_job_json(
    R"({"env": {"ZZ_LAST_NAME": "1", "AA": "2", "MM": "$AA"}, "model": {"preset": "llama3-8b"}})", "<stdin>", 1,
    job_json_presets());
  REQUIRE(spec.env.size() == 3);
  CHECK(spec.env[0].first == "ZZ_LAST_NAME");
  CHECK(spec.env[1].first == "AA");
  CHECK(spec.env[2].first == "MM");
  const auto from_toml = lg::config::load_job_text(
    "[env]\nZZ_LAST_NAME = \"1\"\nAA = \"2\"\nMM = \"$AA\"\n[model]\npreset = \"llama3-8b\"\n", "job.toml",
    job_json_presets());
  CHECK(spec.env == from_toml.env);
  // Escaped names and nested objects before [env] do not shift the columns.
  const std::string tricky =
    R"({"job": {"name": "a\"{,b"}, "env": {"B\u0041R": "x", "A": "y"}, "model": {"preset": "llama3-8b"}})";
  const auto escaped = lg::config::load_job_json(tricky, "<stdin>", 2, job_json_presets());
  REQUIRE(escaped.env.size() == 2);
  CHECK(escaped.env[0].first == "BAR");
  CHECK(escaped.env[1].first == "A");
  CHECK(escaped.location_of("env.BAR")->column == static_cast<int>(tricky.find("\"B\\u0041R\"")) + 1);
}

TEST_CASE("job_json: schema errors name the line and the key, with the schema's hint")
{
  // Located at the key's column on the line (the opening quote, 1-based).
  const std::string typo = job_json_error(R"({"model": {"preset": "llama3-8b"}, "parallelism": {"ppp": 2}})");
  CHECK(typo.find("<stdin>:7:52: unknown key 'ppp' in [parallelism]") != std::string::npos);
  CHECK(typo.find("did you mean 'pp'?") != std::string::npos);
  const std::string type = job_json_error(R"({"model": {"preset": "llama3-8b"}, "parallelism": {"tp": "four"}})");
  CHECK(type.find("<stdin>:7:52: parallelism.tp must be an integer, got string \"four\"") != std::string::npos);
  // A problem of the whole job: the line, no column.
  const std::string whole = job_json_error(R"({"parallelism": {"tp": 1}})");
  CHECK(whole.find("<stdin>:7: model.num_layers is required") == 0);
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
  CHECK(lg::config::load_job_json(quoted, "<stdin>", 1, job_json_presets()).name == std::string(200, '['));
}

TEST_SUITE_END();
