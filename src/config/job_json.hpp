// A job written as one JSON object (a line of `check --jsonl`, `estimate
// --jsonl`): the same sections and keys as a job file, `{"model": {"preset":
// "llama3-8b"}, "parallelism": {"tp": 2}}`, read through the job-file schema.
#pragma once

#include "config/job_spec.hpp"
#include "config/loader.hpp"

#include <string>
#include <string_view>

namespace lg::config {

// Load the job in `text`, one JSON object, line `line` of `file` ("<stdin>",
// 3): a key's findings and errors are located at its column on that line
// ("<stdin>:3:41"), the job's own at the line ("<stdin>:3"), and [env] keeps
// the object's order. Throws
// InputError (exit 2) for text that is not JSON (with the column), a value
// that is not an object, `null`, an integer outside 64 bits, nesting deeper
// than k_max_toml_depth, and whatever load_job_text refuses.
JobSpec load_job_json(std::string_view text, const std::string& file, int line, const LoadOptions& options);

} // namespace lg::config
