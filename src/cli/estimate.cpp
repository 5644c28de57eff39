// `launchguard estimate`: per-GPU memory per pipeline stage.
#include "cli/commands.hpp"
#include "cli/estimate_output.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_input.hpp"
#include "cli/output.hpp"
#include "cli/throughput_output.hpp"
#include "env/compose.hpp"
#include "throughput/throughput.hpp"

#include <fmt/core.h>

namespace lg::cli {

int run_estimate(const GlobalOptions& global, const std::vector<std::string>& args)
{
  boost::program_options::options_description options("estimate options");
  add_job_options(options);
  const ParsedArgs parsed = parse_args("estimate", options, args);
  const config::JobSpec spec = load_job(parsed);
  estimate::Options estimate_options;
  estimate_options.expandable_segments = env::has_expandable_segments(env::compose(spec, {}));
  const estimate::Estimate result = estimate::estimate(spec, estimate_options);
  const throughput::Throughput speed = throughput::predict(spec);
  if (global.json) {
    nlohmann::json out = to_json(result);
    out["throughput"] = to_json(speed);
    out["throughput"]["main_cost"] = speed.main_cost;
    out["throughput"]["costs"] = costs_json(speed);
    print_json(out);
  } else {
    print_estimate(global, spec, result);
    fmt::print("\n{}\n", throughput_line(speed));
  }
  return k_exit_ok;
}

} // namespace lg::cli
