// `launchguard estimate`: per-GPU memory per pipeline stage. Many job files,
// or --jsonl, run as a batch (cli/job_batch.hpp).
#include "cli/commands.hpp"
#include "cli/estimate_output.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_batch.hpp"
#include "cli/job_input.hpp"
#include "cli/output.hpp"
#include "cli/throughput_output.hpp"
#include "preflight/judge.hpp"
#include "throughput/throughput.hpp"

#include <fmt/core.h>

namespace lg::cli {

// Estimate `spec`; print the text result, or fill `*document` (--json).
static int estimate_one_job(const GlobalOptions& global, const config::JobSpec& spec, nlohmann::json* document)
{
  const preflight::JudgedJob judged = preflight::judge(spec);
  // A PYTORCH_CUDA_ALLOC_CONF that PyTorch rejects changes the memory
  // reading, so estimate reports it too (the same finding as check).
  std::vector<Diagnostic> startup;
  for (const auto& finding : judged.findings) {
    if (finding.rule == env::k_allocator_config_error) {
      startup.push_back(finding);
    }
  }
  const throughput::Throughput speed = throughput::predict(spec);
  if (document != nullptr) {
    *document = to_json(judged.estimate);
    (*document)["throughput"] = to_json(speed);
    (*document)["throughput"]["main_cost"] = speed.main_cost;
    (*document)["throughput"]["costs"] = costs_json(speed);
    (*document)["throughput"]["caveats"] = speed.caveats;
    if (!startup.empty()) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& finding : startup) {
        list.push_back(to_json(finding));
      }
      (*document)["findings"] = list;
    }
  } else {
    if (!startup.empty()) {
      print_diagnostics(global, startup);
      fmt::print("\n");
    }
    print_estimate(global, spec, judged.estimate);
    fmt::print("\n{}\n", throughput_line(speed));
    print_caveats(speed);
  }
  return startup.empty() ? k_exit_ok : k_exit_job_errors;
}

int run_estimate(const GlobalOptions& global, const std::vector<std::string>& args)
{
  boost::program_options::options_description options("estimate options");
  add_job_options(options);
  add_batch_options(options);
  const ParsedArgs parsed = parse_args("estimate", options, args, -1);
  const auto judge_one = [&](const config::JobSpec& spec, nlohmann::json* document) {
    return estimate_one_job(global, spec, document);
  };
  return run_jobs(global, parsed, judge_one);
}

} // namespace lg::cli
