// No file of the project points outside the repository: users and readers get
// only the checkout, so a citation names the upstream project, file and line
// (or a URL), never a local path to documents the project does not ship, nor
// such a document by its bare file name (the team's private notes and the
// development data sets are not part of the checkout).
// The patterns are assembled from pieces so that this file passes its own test;
// they are matched case-insensitively (a capital letter does not hide a name).
#include "repository/repository_files.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> outside_pointer_patterns()
{
  const std::string dot = ".";
  const std::string md = dot + "md";
  return {
      // paths and the names of the developers' contract
      dot + dot + "/shared", std::string("spec") + md, std::string("style") + md,
      std::string("reference") + "/", std::string("source ") + "document",
      // the private reference notes, by bare name
      std::string("rules_and") + "_env", std::string("memory-") + "tuning" + md,
      std::string("memory_") + "tuning" + md, std::string("failure_") + "signatures" + md,
      std::string("estimators") + md, std::string("estimator_") + "formulas", std::string("launchers") + md,
      // the development data sets, by bare name
      std::string("failure_logs") + "_dev", std::string("memory_measurements") + "_dev",
      std::string("sbatch_corpus") + "_dev", std::string("memory_ground") + "_truth",
      std::string("failure_") + "corpus"};
}

std::string lowercase_ascii(std::string text)
{
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The patterns `line` contains.
std::vector<std::string> outside_pointers_in(const std::string& line)
{
  std::vector<std::string> found;
  const std::string lower = lowercase_ascii(line);
  for (const auto& pattern : outside_pointer_patterns()) {
    if (lower.find(pattern) != std::string::npos) {
      found.push_back(pattern);
    }
  }
  return found;
}

bool is_text(const std::string& text)
{
  return text.find('\0') == std::string::npos;
}

} // namespace

TEST_SUITE_BEGIN("repository");

TEST_CASE("no file points outside the repository")
{
  std::vector<std::string> hits;
  for (const auto& file : lg::testing::project_files()) {
    const std::string text = lg::testing::project_text(file);
    if (!is_text(text)) {
      continue;
    }
    std::istringstream in(text);
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      for (const auto& pattern : outside_pointers_in(line)) {
        hits.push_back(file.string() + ":" + std::to_string(number) + ": " + pattern);
      }
    }
  }
  for (const auto& hit : hits) {
    MESSAGE(hit);
  }
  CHECK(hits.empty());
}

TEST_CASE("the outside-pointer check sees a pointer, by path or by bare name")
{
  const std::string dot = ".";
  CHECK_FALSE(outside_pointers_in("see " + dot + dot + "/shared/data").empty());
  CHECK_FALSE(outside_pointers_in("the schema in SPEC" + dot + "md").empty());
  CHECK_FALSE(outside_pointers_in("// The source " + std::string("document's trade-offs")).empty());
  CHECK_FALSE(outside_pointers_in("// Flag names: rules_and" + std::string("_env") + dot + "md section E.").empty());
  CHECK_FALSE(outside_pointers_in("(memory-tuning" + dot + "md \"Quick Decision\")").empty());
  CHECK_FALSE(outside_pointers_in("(failure_signatures" + dot + "md §1.2)").empty());
  CHECK_FALSE(outside_pointers_in("one squeue per job (launchers" + dot + "md §3)").empty());
  CHECK_FALSE(outside_pointers_in("$DATA/memory_measurements" + std::string("_dev") + dot + "json").empty());
  // What the project does own, or cites upstream, is not a pointer outside.
  CHECK(outside_pointers_in("docs/job-file.md and docs/estimator.md").empty());
  CHECK(outside_pointers_in("[SK] nemo-mbridge-perf-memory-tuning/SKILL.md:49-69").empty());
  CHECK(outside_pointers_in("the Megatron Bridge memory-tuning guide").empty());
}

TEST_SUITE_END();
