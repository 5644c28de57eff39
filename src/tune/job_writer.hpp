// A JobSpec written back as a job file (`tune --write-job`): every key the
// loader reads, so loading the text gives the same job. Pure.
#pragma once

#include "config/job_spec.hpp"

#include <string>

namespace lg::tune {

// Return `text` as a TOML basic string, quotes and escapes included.
std::string toml_string(const std::string& text);

// Return the TOML text of `spec`, headed by `comment` lines ("# …").
std::string job_toml(const config::JobSpec& spec, const std::string& comment);

} // namespace lg::tune
