// The signature catalogue as the CLI assembles it: the shipped
// signatures/default.toml (else the copy built into the binary), then the
// user's $XDG_CONFIG_HOME/launchguard/signatures/*.toml in name order, then
// each extra file; a later signature with the same id replaces an earlier one.
#pragma once

#include "diagnose/catalogue.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace lg::cli {

diagnose::Catalogue load_catalogue(const std::vector<std::string>& extra);

// Read a whole file ("-" = stdin). Throws InputError naming `what`.
std::string read_text(const std::string& path, std::string_view what);

} // namespace lg::cli
