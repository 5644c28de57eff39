// `launchguard render JOB.toml [-o FILE] [--force]`: the sbatch script. It
// runs the same rules as `check` (plus the environment findings) and refuses
// a job with error-level findings unless --force, listing them. The script
// goes to stdout or FILE; findings always go to stderr (or into --json).
#include "cli/commands.hpp"
#include "cli/data_paths.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_input.hpp"
#include "cli/output.hpp"
#include "launch/job_script.hpp"
#include "preflight/judge.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <iostream>
#include <sstream>

namespace lg::cli {

namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;


// Print the findings (stderr, errors and warnings only: advice is `check`'s
// business) or the JSON document (every finding).
int report(const GlobalOptions& global, const std::vector<Diagnostic>& findings,
           const std::string* script, bool refused)
{
  if (global.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& finding : findings) {
      list.push_back(to_json(finding));
    }
    nlohmann::json doc = {{"ok", !refused}, {"findings", list}};
    if (script != nullptr) {
      doc["script"] = *script;
    }
    print_json(doc);
  } else {
    for (const auto& finding : findings) {
      const bool shown = finding.severity == Severity::error
                         || (!refused && finding.severity == Severity::warning);
      if (shown) {
        std::cerr << format(finding) << "\n";
      }
    }
  }
  return refused ? k_exit_job_errors : k_exit_ok;
}

} // namespace

int run_render(const GlobalOptions& global, const std::vector<std::string>& args)
{
  po::options_description options("render options");
  options.add_options()
    ("output,o", po::value<std::string>(), "write the script to FILE instead of stdout")
    ("force", "render even when the job has error-level findings");
  add_job_options(options);
  const ParsedArgs parsed = parse_args("render", options, args);
  const config::JobSpec spec = load_job(parsed);
  const preflight::JudgedJob judged = preflight::judge(spec);
  const std::vector<Diagnostic>& findings = judged.findings;
  const auto errors = std::count_if(findings.begin(), findings.end(),
                                    [](const Diagnostic& d) { return d.severity == Severity::error; });
  if (errors > 0 && parsed.vars.count("force") == 0U) {
    if (!global.json) {
      std::cerr << "launchguard: render: refusing to render: the job has " << errors
                << " error-level finding(s); fix them or pass --force\n";
    }
    return report(global, findings, nullptr, true);
  }
  const std::string script = launch::render_job_script(spec, judged.environment, template_dirs());
  if (parsed.vars.count("output") != 0U) {
    // A script that carries a credential from [env] is readable by its owner only.
    write_file_atomically(parsed.vars["output"].as<std::string>(), script, job_env_write_options(spec));
  } else if (!global.json) {
    std::cout << script;
  }
  if (errors > 0 && !global.json) {
    std::cerr << "launchguard: render: rendered despite " << errors
              << " error-level finding(s) (--force)\n";
  }
  return report(global, findings, &script, false);
}

} // namespace lg::cli
