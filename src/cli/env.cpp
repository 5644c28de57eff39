// `launchguard env JOB.toml [--explain] [--format sh|json] [--set NAME=VALUE…]`:
// the composed environment as sourceable shell (with the reason for each
// variable as comments under --explain) or as JSON. Findings go to stderr in
// sh format so that the output stays sourceable; errors exit 1.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_input.hpp"
#include "cli/output.hpp"
#include "env/compose.hpp"
#include "preflight/judge.hpp"
#include "render/render.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <fmt/core.h>

#include <iostream>

namespace lg::cli {

namespace {

namespace po = boost::program_options;

env::Assignments parse_sets(const std::vector<std::string>& sets)
{
  env::Assignments out;
  for (const auto& text : sets) {
    auto pair = env::parse_assignment(text);
    if (!pair) {
      UsageError error("--set {}: expected NAME=VALUE", text);
      error.hint = "for example --set NCCL_DEBUG=INFO";
      throw error;
    }
    out.push_back(std::move(*pair));
  }
  return out;
}

// One comment line: control characters become spaces so the comment cannot
// end early and the output stays safe to source.
std::string comment(std::string_view label, std::string_view text)
{
  std::string line = fmt::format("# {:<7} {}", label, text);
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      c = ' ';
    }
  }
  return line + "\n";
}

void print_sh(const env::Environment& environment, bool explain)
{
  std::string out;
  for (const auto& v : environment.variables) {
    if (explain) {
      out += comment("layer:", env::to_string(v.layer));
      out += comment("rule:", v.rule);
      out += comment("reason:", v.reason);
      if (!v.citation.empty()) {
        out += comment("source:", v.citation);
      }
    }
    out += v.action == env::Action::set
             ? "export " + v.name + "=" + (v.per_job ? render::script_quote_per_job(v.value) : shell_quote(v.value))
             : "unset " + v.name;
    out += explain ? "\n\n" : "\n";
  }
  std::cout << out;
  for (const auto& finding : environment.findings) {
    std::cerr << format(finding) << "\n";
  }
}

nlohmann::json to_json(const env::Environment& environment)
{
  nlohmann::json variables = nlohmann::json::array();
  for (const auto& v : environment.variables) {
    nlohmann::json& variable =
      variables.emplace_back(nlohmann::json{{"name", v.name},
                                            {"value", v.value},
                                            {"action", v.action == env::Action::set ? "set" : "unset"},
                                            {"layer", env::to_string(v.layer)},
                                            {"rule", v.rule},
                                            {"reason", v.reason},
                                            {"citation", v.citation}});
    if (v.per_job) {
      variable["per_job"] = true;
    }
  }
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& finding : environment.findings) {
    findings.push_back(cli::to_json(finding));
  }
  return {{"ok", !has_errors(environment.findings)}, {"variables", variables}, {"findings", findings}};
}

} // namespace

int run_env(const GlobalOptions& global, const std::vector<std::string>& args)
{
  po::options_description options("env options");
  options.add_options()
    ("explain", "print the layer, rule, reason and upstream source of each variable")
    ("format", po::value<std::string>()->default_value("sh"), "sh | json")
    ("set", po::value<std::vector<std::string>>()->composing(),
     "NAME=VALUE: override (highest layer); repeatable");
  add_job_options(options);
  const ParsedArgs parsed = parse_args("env", options, args);
  std::string format = parsed.vars["format"].as<std::string>();
  if (global.json) {
    format = "json";
  }
  if (format != "sh" && format != "json") {
    throw UsageError("--format {}: expected sh or json", format);
  }
  const auto sets = parsed.vars.count("set") != 0U
                      ? parse_sets(parsed.vars["set"].as<std::vector<std::string>>())
                      : env::Assignments{};
  const config::JobSpec spec = load_job(parsed);
  preflight::Options judge_options;
  judge_options.overrides = sets;
  judge_options.with_estimate = false;
  const env::Environment environment = preflight::judge(spec, judge_options).environment;
  if (format == "json") {
    print_json(to_json(environment));
  } else {
    print_sh(environment, parsed.vars.count("explain") != 0U);
  }
  return has_errors(environment.findings) ? k_exit_job_errors : k_exit_ok;
}

} // namespace lg::cli
