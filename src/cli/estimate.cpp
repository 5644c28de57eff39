// `launchguard estimate`: per-GPU memory per pipeline stage.
#include "cli/commands.hpp"
#include "cli/estimate_output.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_input.hpp"
#include "cli/output.hpp"
#include "env/compose.hpp"

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
  if (global.json) {
    print_json(to_json(result));
  } else {
    print_estimate(global, spec, result);
  }
  return k_exit_ok;
}

} // namespace lg::cli
