// No file of the project points outside the repository: users and readers get
// only the checkout, so a citation names the upstream project, file and line
// (or a URL), never a local path to documents the project does not ship.
// The patterns are assembled from pieces so that this file passes its own test.
#include "repository/repository_files.hpp"

#include <doctest/doctest.h>

#include <array>
#include <sstream>
#include <string>

namespace {

std::array<std::string, 5> patterns()
{
  const std::string dot = ".";
  return {dot + dot + "/shared", std::string("SPEC") + dot + "md", std::string("STYLE") + dot + "md",
          std::string("reference") + "/", std::string("the source ") + "document"};
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
      for (const auto& pattern : patterns()) {
        if (line.find(pattern) != std::string::npos) {
          hits.push_back(file.string() + ":" + std::to_string(number) + ": " + pattern);
        }
      }
    }
  }
  for (const auto& hit : hits) {
    MESSAGE(hit);
  }
  CHECK(hits.empty());
}

TEST_CASE("the outside-pointer check sees a pointer")
{
  const auto p = patterns();
  CHECK(("see " + p[0] + "/data").find(p[0]) != std::string::npos);
  CHECK(("the schema in " + p[1]).find(p[1]) != std::string::npos);
  CHECK(std::string("docs/job-file.md").find(p[1]) == std::string::npos);
}

TEST_SUITE_END();
