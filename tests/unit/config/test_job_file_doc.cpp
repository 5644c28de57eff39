// docs/job-file.md lists exactly the keys the loader accepts, with the types,
// ranges and defaults of the schema (src/config/schema.cpp) and what each
// changes (src/config/key_effects.cpp). Regenerate with
// LG_UPDATE_DOCS=1 build/tests/unit/test_config -tc='*job-file*'.
#include "config/key_effects.hpp"
#include "config/schema_doc.hpp"
#include "config/toml_reader.hpp"
#include "support/generated_docs.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>

TEST_SUITE_BEGIN("config");

TEST_CASE("docs/job-file.md: the key table is the schema's")
{
  const std::string table = lg::config::job_file_reference();
  CHECK(table.find("| `tp` | integer | `1..") != std::string::npos);
  CHECK(table.find("### `[env]`") != std::string::npos);
  lg::testing::check_generated_section(std::filesystem::path(LG_SOURCE_DIR) / "docs/job-file.md", table);
}

TEST_CASE("docs/job-file.md: every key says what it changes, and only schema keys do")
{
  std::set<std::string> schema_keys;
  for (const auto& section : lg::config::job_schema()) {
    for (const auto& [name, key] : section.keys) {
      const std::string dotted = section.name + "." + name;
      schema_keys.insert(dotted);
      INFO(dotted << " has no entry in src/config/key_effects.cpp");
      CHECK_FALSE(lg::config::key_effect(dotted).empty());
    }
  }
  for (const auto& [dotted, effect] : lg::config::key_effects()) {
    INFO(dotted << " in src/config/key_effects.cpp is not a job-file key");
    CHECK(schema_keys.count(std::string(dotted)) == 1);
  }
  CHECK(lg::config::key_effect("parallelism.nope").empty());
}

TEST_SUITE_END();
