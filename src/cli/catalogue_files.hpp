// The signature catalogue as the CLI assembles it: the shipped
// signatures/default.toml (else the copy built into the binary), then the
// user's $XDG_CONFIG_HOME/launchguard/signatures/*.toml in name order, then
// each extra file; a later signature with the same id replaces an earlier one.
#pragma once

#include "diagnose/catalogue.hpp"
#include "diagnose/scan.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace lg::cli {

diagnose::Catalogue load_catalogue(const std::vector<std::string>& extra);

// Read a whole file ("-" = stdin) of at most k_max_job_bytes. Throws
// InputError naming `what`.
std::string read_text(const std::string& path, std::string_view what);

// Scan the logs at `paths` ("-" = stdin; plain, gzip or zstd), streaming.
// Every file is opened first, so a path that cannot be read is an
// InputError before any work.
diagnose::ScanResult scan_log_files(const std::vector<std::string>& paths, const diagnose::Matcher& matcher);

} // namespace lg::cli
