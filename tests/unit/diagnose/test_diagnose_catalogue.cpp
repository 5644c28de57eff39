// The catalogue as data: the shipped file, user files with mistakes, the
// round trip through TOML.
#include "diagnose/catalogue.hpp"
#include "diagnose/diagnose.hpp"

#include "util/error.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

using namespace lg::diagnose;

namespace {

// Return the message and hint of the InputError that parsing `text` throws.
std::pair<std::string, std::string> error_of(const std::string& text)
{
  try {
    parse_catalogue(text, "user.toml");
  } catch (const lg::InputError& e) {
    return {e.what(), e.hint};
  }
  FAIL("no error for: " << text);
  return {};
}

} // namespace

TEST_SUITE_BEGIN("diagnose");

TEST_CASE("catalogue: the built-in copy is signatures/default.toml and covers every category")
{
  std::ifstream file(std::string(LG_SOURCE_DIR) + "/signatures/default.toml");
  std::stringstream text;
  text << file.rdbuf();
  CHECK(text.str() == default_catalogue_text());
  const Catalogue catalogue = default_catalogue();
  for (const auto& category : category_names()) {
    if (category != "none") {
      CAPTURE(category);
      CHECK(catalogue.categories.count(category) == 1);
    }
  }
}

TEST_CASE("catalogue: mistakes in a user catalogue point at line and column with a hint")
{
  auto [syntax, syntax_hint] = error_of("[[signature]]\nid = 'x\n");
  CHECK(syntax.rfind("user.toml:2:", 0) == 0);
  auto [key, key_hint] = error_of("[[signature]]\nid = 'x'\ncategory = 'host_oom'\npaterns = ['Killed']\n");
  CHECK(key.rfind("user.toml:4:1: unknown key 'paterns'", 0) == 0);
  CHECK(key_hint == "did you mean 'patterns'?");
  auto [category, category_hint] = error_of("[[signature]]\nid = 'x'\ncategory = 'host_oomm'\npatterns = ['a']\n");
  CHECK(category.rfind("user.toml:3:12: unknown category 'host_oomm'", 0) == 0);
  CHECK(category_hint == "did you mean 'host_oom'?");
  auto [regex, regex_hint] =
    error_of("[[signature]]\nid = 'x'\ncategory = 'host_oom'\npatterns = ['ok', '(a)\\1']\n");
  CHECK(regex.rfind("user.toml:4:19: pattern '(a)\\1' does not compile", 0) == 0);
  CHECK(regex_hint.find("RE2") != std::string::npos);
  auto [missing, missing_hint] = error_of("[[signature]]\nid = 'x'\ncategory = 'host_oom'\n");
  CHECK(missing.find("signature 'x' has no patterns") != std::string::npos);
  auto [duplicate, duplicate_hint] =
    error_of("[[signature]]\nid = 'x'\nfact = 'job_failed'\npatterns = ['a']\n"
             "[[signature]]\nid = 'x'\nfact = 'job_failed'\npatterns = ['b']\n");
  CHECK(duplicate.find("duplicate signature id 'x'") != std::string::npos);
  auto [rank, rank_hint] = error_of("[[signature]]\nid = 'x'\ncategory = 'host_oom'\nrank = 'low'\npatterns = ['a']\n");
  CHECK(rank.rfind("user.toml:4:8: 'rank' must be an integer", 0) == 0);
}

TEST_CASE("catalogue: round trip through TOML")
{
  const Catalogue original = default_catalogue();
  const Catalogue again = parse_catalogue(to_toml(original), "round-trip.toml");
  REQUIRE(again.signatures.size() == original.signatures.size());
  for (std::size_t i = 0; i < original.signatures.size(); ++i) {
    const Signature& a = original.signatures[i];
    const Signature& b = again.signatures[i];
    CAPTURE(a.id);
    CHECK(a.id == b.id);
    CHECK(a.category == b.category);
    CHECK(a.fact == b.fact);
    CHECK(a.rank == b.rank);
    CHECK(a.confidence == doctest::Approx(b.confidence));
    CHECK(a.patterns == b.patterns);
    CHECK(a.negative == b.negative);
    CHECK(a.parse == b.parse);
    CHECK(a.fix == b.fix);
    CHECK(a.suggested_change == b.suggested_change);
    CHECK(a.retryable == b.retryable);
  }
  REQUIRE(again.categories.size() == original.categories.size());
  for (const auto& [name, info] : original.categories) {
    CHECK(again.categories.at(name).fix == info.fix);
    CHECK(again.categories.at(name).suggested_change == info.suggested_change);
    CHECK(again.categories.at(name).retryable == info.retryable);
  }
}

TEST_CASE("catalogue: a user signature adds a cause or replaces a shipped one by id")
{
  Catalogue catalogue = default_catalogue();
  const std::size_t shipped = catalogue.signatures.size();
  merge_catalogue(catalogue, parse_catalogue(R"(
[[signature]]
id = "site-lustre-hang"
category = "nccl_error"
rank = 50
patterns = ['LustreError: .* evicted']
fix = "Lustre evicted the client; ask the admins."

[[signature]]
id = "killed-by-sigkill"
category = "host_oom"
rank = 55
patterns = ['^KILLED BY SITE WATCHDOG$']
)", "site.toml"));
  CHECK(catalogue.signatures.size() == shipped + 1);
  const Matcher matcher(std::move(catalogue));
  const Diagnosis site = diagnose({{"j.out", "LustreError: 11-0: client evicted\n"}}, matcher);
  CHECK(site.category == "nccl_error");
  CHECK(site.fix == "Lustre evicted the client; ask the admins.");
  CHECK(diagnose({{"j.out", "Killed\n"}}, matcher).category == "none");
  CHECK(diagnose({{"j.out", "KILLED BY SITE WATCHDOG\n"}}, matcher).category == "host_oom");
}

TEST_SUITE_END();
