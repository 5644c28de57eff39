// The batch script of a job as `render`, `submit` and every retry attempt
// produce it: the judged environment through the job's template. The only
// I/O is reading the template file.
#pragma once

#include "config/job_spec.hpp"
#include "env/environment.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace lg::launch {

// Locate the job's template: `[launch] template` is a path when it has a '/'
// or ends in ".mustache" (relative to the job file's directory), else the
// first `<dir>/<name>.sbatch.mustache` over `template_dirs`. Throws
// InputError listing where it looked.
std::filesystem::path resolve_template(const config::JobSpec& spec,
                                       const std::vector<std::filesystem::path>& template_dirs);

// Render `spec` with `environment` through its template.
std::string render_job_script(const config::JobSpec& spec, const env::Environment& environment,
                              const std::vector<std::filesystem::path>& template_dirs);

// Judge `spec` (preflight) and render it with the judged environment.
std::string render_job_script(const config::JobSpec& spec,
                              const std::vector<std::filesystem::path>& template_dirs);

} // namespace lg::launch
