// docs/job-file.md's key table, generated from the schema (schema.cpp), so
// the documentation lists exactly the keys the loader accepts.
#pragma once

#include <string>

namespace lg::config {

// One Markdown table per section: key, type, range or allowed values,
// default. A test keeps docs/job-file.md equal to it (LG_UPDATE_DOCS=1
// rewrites it; see CONTRIBUTING.md).
std::string job_file_reference();

} // namespace lg::config
