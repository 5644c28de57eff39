// Documentation sections generated from a table in the code (docs/rules.md,
// docs/failure-categories.md): the text between "<!-- catalogue:begin -->"
// and "<!-- catalogue:end -->" must equal the generated table.
#pragma once

#include <filesystem>
#include <string>

namespace lg::testing {

// Check that the generated section of `doc` is `table`; with LG_UPDATE_DOCS
// set in the environment, rewrite the section first.
void check_generated_section(const std::filesystem::path& doc, const std::string& table);

} // namespace lg::testing
