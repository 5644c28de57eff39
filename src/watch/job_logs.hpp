// Which files a job writes its output to: Slurm's --output pattern with the
// job's name and id filled in. Per-task patterns (%t, %n, %N) match every
// task's file.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace lg::watch {

// Expand `pattern` ("logs/%x-%j.out") for `job_name` and `job_id` relative to
// `base`, and return the existing files it names (per-task placeholders act
// as wildcards). "%%" is a literal '%'. Unknown placeholders match anything.
std::vector<std::filesystem::path> job_log_files(const std::string& pattern,
                                                 const std::string& job_name,
                                                 const std::string& job_id,
                                                 const std::filesystem::path& base);

} // namespace lg::watch
