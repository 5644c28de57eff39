// docs/job-file.md lists exactly the keys the loader accepts, with the types,
// ranges and defaults of the schema (src/config/schema.cpp). Regenerate with
// LG_UPDATE_DOCS=1 build/tests/unit/test_config -tc='*job-file*'.
#include "config/schema_doc.hpp"
#include "support/generated_docs.hpp"

#include <doctest/doctest.h>

TEST_SUITE_BEGIN("config");

TEST_CASE("docs/job-file.md: the key table is the schema's")
{
  const std::string table = lg::config::job_file_reference();
  CHECK(table.find("| `tp` | integer | `1..") != std::string::npos);
  CHECK(table.find("### `[env]`") != std::string::npos);
  lg::testing::check_generated_section(std::filesystem::path(LG_SOURCE_DIR) / "docs/job-file.md", table);
}

TEST_SUITE_END();
