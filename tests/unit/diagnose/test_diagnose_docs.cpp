// docs/failure-categories.md lists every category of the shipped catalogue
// with its fix, whether a retry helps, what it refines and its signatures.
#include "diagnose/catalogue.hpp"
#include "support/generated_docs.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <string>

using namespace lg::diagnose;

namespace {

std::string cell(std::string text)
{
  for (auto at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2)) {
    text.replace(at, 1, "\\|");
  }
  return text;
}

std::string docs_table()
{
  const Catalogue catalogue = default_catalogue();
  std::string table = "| category | retry helps | refines | fix | signatures |\n|---|---|---|---|---|\n";
  for (const auto& name : category_names()) {
    const auto found = catalogue.categories.find(name);
    if (found == catalogue.categories.end()) {
      continue;
    }
    std::string signatures;
    for (const auto& sig : catalogue.signatures) {
      if (sig.category == name) {
        signatures += (signatures.empty() ? "`" : ", `") + sig.id + "`";
      }
    }
    table += fmt::format("| `{}` | {} | {} | {} | {} |\n", name, found->second.retryable ? "yes" : "no",
                         found->second.refines.empty() ? "" : "`" + found->second.refines + "`",
                         cell(found->second.fix), signatures);
  }
  return table;
}

} // namespace

TEST_SUITE_BEGIN("diagnose");

TEST_CASE("docs: docs/failure-categories.md lists every category (LG_UPDATE_DOCS=1 rewrites the table)")
{
  const std::string table = docs_table();
  lg::testing::check_generated_section(std::filesystem::path(LG_SOURCE_DIR) / "docs" / "failure-categories.md", table);
  for (const auto& name : category_names()) {
    if (name != "none") {
      CHECK_MESSAGE(table.find("| `" + name + "` |") != std::string::npos, "no row for " << name);
    }
  }
}

TEST_SUITE_END();
