// The batch script of a job as `render` and `submit` produce it: the
// composed environment through the job's template.
#pragma once

#include "config/job_spec.hpp"
#include "env/environment.hpp"

#include <filesystem>
#include <string>

namespace lg::cli {

// Locate the job's template: `[launch] template` is a path when it has a '/'
// or ends in ".mustache" (relative to the job file's directory), else a
// shipped or user template name. Throws InputError listing where it looked.
std::filesystem::path resolve_template(const config::JobSpec& spec);

// Render `spec` with `environment` through its template.
std::string render_job_script(const config::JobSpec& spec, const env::Environment& environment);

// Compose the environment of `spec` and render its script.
std::string render_job_script(const config::JobSpec& spec);

} // namespace lg::cli
