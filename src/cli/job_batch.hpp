// Batch mode of `check` and `estimate`: many job files, and jobs as JSON
// lines (`--jsonl FILE`, `-` for standard input), judged in one process.
// One result per input, in input order: text blocks headed "==> NAME <==",
// or with --json one compact JSON object per line ({"input", "exit_code",
// …the single-job document…} or {"input", "exit_code", "error": {"message",
// "hint"}}). An input that cannot be read is reported in its place (on
// stdout: it is that input's result) and the rest still run; the exit code
// is the worst of the inputs'. Text ends with a count of the results.
#pragma once

#include "cli/commands.hpp"
#include "cli/job_input.hpp"
#include "config/job_spec.hpp"

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include <functional>

namespace lg::cli {

// Add --jsonl to `options`.
void add_batch_options(boost::program_options::options_description& options);

// True when `parsed` names more than one job file, or --jsonl.
bool is_batch(const ParsedArgs& parsed);

// Judge one loaded job: print its text result (document == nullptr) or fill
// `*document` with its JSON result; return its exit code.
using JudgeOne = std::function<int(const config::JobSpec& spec, nlohmann::json* document)>;

// Run `judge_one` on the job of `parsed` (load_job; a --json result printed
// as one pretty document; a load error thrown), or in batch mode
// (is_batch) on every job: the job files, then each non-blank line of
// --jsonl, streaming (one line held at a time, at most k_max_line_bytes).
// Returns the exit code, in a batch the worst (0 < 1 < 2 < 3).
int run_jobs(const GlobalOptions& global, const ParsedArgs& parsed, const JudgeOne& judge_one);

} // namespace lg::cli
