#include "rules_test_support.hpp"

#include "support/generated_docs.hpp"
#include "util/strings.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using namespace lg;

TEST_SUITE_BEGIN("rules");

namespace {

std::string read_text(const std::filesystem::path& path)
{
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string docs_table()
{
  std::string out = "| id | severity | summary | upstream source |\n|---|---|---|---|\n";
  for (const auto& r : rules::catalogue()) {
    out += "| `" + r.id + "` | " + to_string(r.severity) + " | " + r.summary + " | " + r.source
           + " |\n";
  }
  return out;
}

} // namespace

TEST_CASE("catalogue: the clean 70B baseline and the minimal job have no findings")
{
  for (const auto& spec : {lg::testing::llama3_70b_sft(), lg::testing::minimal_job_spec()}) {
    const auto all = lg::testing::run_rules(spec);
    for (const auto& d : all) {
      MESSAGE(format(d));
    }
    CHECK(all.empty());
  }
}

TEST_CASE("catalogue: ids are unique, dotted and documented")
{
  std::set<std::string> ids;
  for (const auto& r : rules::catalogue()) {
    CHECK_MESSAGE(ids.insert(r.id).second, "duplicate id " << r.id);
    CHECK(r.id.find('.') != std::string::npos);
    CHECK_FALSE(r.summary.empty());
    CHECK_FALSE(r.source.empty());
    CHECK(rules::find_rule(r.id) != nullptr);
  }
  CHECK(rules::find_rule("no.such_rule") == nullptr);
}

TEST_CASE("catalogue: docs/rules.md lists every rule (LG_UPDATE_DOCS=1 rewrites the table)")
{
  lg::testing::check_generated_section(std::filesystem::path(LG_SOURCE_DIR) / "docs" / "rules.md", docs_table());
}

TEST_CASE("catalogue: every rule has a test that names it")
{
  std::string tests;
  const auto dir = std::filesystem::path(LG_SOURCE_DIR) / "tests" / "unit" / "rules";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (name.starts_with("test_") && name != "test_catalogue.cpp") {
      tests += read_text(entry.path());
    }
  }
  for (const auto& r : rules::catalogue()) {
    CHECK_MESSAGE(tests.find("\"" + r.id + "\"") != std::string::npos, "no test names " << r.id);
  }
}

TEST_CASE("check: errors first, then warnings, then advice, each in catalogue order")
{
  auto spec = lg::testing::llama3_70b_sft();
  spec.parallelism.vpp.reset();                   // advice: pipeline.pp_without_vpp
  spec.parallelism.sequence_parallel = false;     // advice: sequence_parallel.recommended_with_tp
  spec.training.cpu_offloading_layers = 2;        // error: offload.cpu_offloading_with_pp
  spec.training.global_batch_size = 33;           // error: parallelism.gbs_divisible
  spec.training.tp_comm_overlap = true;           // warning (Bridge disables it)
  const auto all = lg::testing::run_rules(spec);
  std::vector<std::string> ids;
  for (const auto& d : all) {
    ids.push_back(d.rule);
  }
  const std::vector<std::string> expected = {
    "parallelism.gbs_divisible", "offload.cpu_offloading_with_pp",
    "sequence_parallel.tp_comm_overlap_disabled", "pipeline.pp_without_vpp",
    "sequence_parallel.recommended_with_tp"};
  CHECK_MESSAGE(ids == expected, "got: " << lg::join(ids, ", "));
  CHECK(has_errors(all));
}

// tune's search asks only for errors and warnings (rules::check with a least
// severity): the same findings as check() without the advice, in its order.
TEST_CASE("check: a least severity leaves out only the findings below it")
{
  auto spec = lg::testing::llama3_70b_sft();
  spec.parallelism.vpp.reset();                // advice
  spec.parallelism.sequence_parallel = false;  // advice
  spec.training.global_batch_size = 33;        // error
  spec.training.tp_comm_overlap = true;        // warning
  const auto all = rules::check(spec, lg::testing::fits_estimate());
  const auto some = rules::check(spec, lg::testing::fits_estimate(), Severity::warning);
  std::vector<std::string> expected;
  for (const auto& d : all) {
    if (d.severity != Severity::advice) {
      expected.push_back(d.rule + ": " + d.message);
    }
  }
  std::vector<std::string> got;
  for (const auto& d : some) {
    got.push_back(d.rule + ": " + d.message);
  }
  CHECK(expected.size() == 2);
  CHECK(got == expected);
}

TEST_CASE("check: findings without a located key fall back to the job file")
{
  auto spec = lg::testing::llama3_70b_sft();
  spec.source_file = "job.toml";
  spec.training.cpu_offloading_layers = 2;
  const auto all = rules::check(spec, lg::testing::fits_estimate());
  REQUIRE_FALSE(all.empty());
  REQUIRE(all.front().where.has_value());
  CHECK(all.front().where->file == "job.toml");
  CHECK(all.front().where->line == 0);
}

TEST_SUITE_END();
