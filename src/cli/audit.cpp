// `launchguard audit SCRIPT… [--fix[=diff]] [--format text|json|sarif]
// [--gpu G] [--template]`: audit sbatch scripts line by line; exit 1 when any
// finding is an error. `-` reads standard input. With --fix the corrected
// script is written back (stdin: to stdout); --fix=diff prints a unified diff.
#include "audit/audit.hpp"
#include "audit/fix.hpp"
#include "audit/sarif.hpp"
#include "cli/commands.hpp"
#include "cli/data_paths.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_input.hpp"
#include "cli/output.hpp"
#include "config/loader.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/input.hpp"

#include <fmt/core.h>

#include <filesystem>
#include <fstream>
#include <iostream>

namespace lg::cli {

namespace {

namespace po = boost::program_options;

struct AuditArgs
{
  std::vector<std::string> scripts;
  std::string format = "text";
  std::string fix;  // "", "write", "diff"
  audit::AuditOptions options;
  bool force_template = false;
};

std::string read_input(const std::string& path)
{
  return read_file(path, "script", k_max_script_bytes);
}

AuditArgs parse(const GlobalOptions& global, const std::vector<std::string>& args)
{
  po::options_description options("audit options");
  options.add_options()
    ("fix", po::value<std::string>()->implicit_value("write"), "write the corrected script (--fix=diff: print a diff)")
    ("format", po::value<std::string>(), "text | json | sarif")
    ("gpu", po::value<std::string>(), "GPU preset the scripts run on (default h100-80gb)")
    ("template", "treat the scripts as mustache templates ({{…}} are unknown values)")
    ("preset-dir", po::value<std::vector<std::string>>()->composing(), "extra preset directory");
  // `--fix FILE` must not read FILE as the option's value: a bare --fix is
  // --fix=write, whatever follows it.
  std::vector<std::string> words = args;
  for (auto& word : words) {
    if (word == "--fix") {
      word = "--fix=write";
    }
  }
  const ParsedArgs parsed = parse_args("audit", options, words, -1);
  AuditArgs out;
  out.scripts = parsed.positional;
  if (out.scripts.empty()) {
    UsageError error("audit: missing SCRIPT");
    error.hint = "usage: launchguard audit SCRIPT… [--fix[=diff]] [--format text|json|sarif]";
    throw error;
  }
  out.format = global.json ? "json" : "text";
  if (parsed.vars.count("format") != 0) {
    out.format = parsed.vars["format"].as<std::string>();
  }
  if (out.format != "text" && out.format != "json" && out.format != "sarif") {
    UsageError error("audit: unknown format '{}'", out.format);
    error.hint = "use --format text, json or sarif";
    throw error;
  }
  if (parsed.vars.count("fix") != 0) {
    out.fix = parsed.vars["fix"].as<std::string>();
    if (out.fix != "write" && out.fix != "diff") {
      UsageError error("audit: --fix takes no value or '=diff', got '{}'", out.fix);
      throw error;
    }
  }
  out.force_template = parsed.vars.count("template") != 0;
  const config::LoadOptions load = load_options(parsed);
  config::JobSpec probe;
  probe.cluster.gpu = parsed.vars.count("gpu") != 0 ? parsed.vars["gpu"].as<std::string>() : "h100-80gb";
  config::resolve_gpu(probe, load);
  out.options.gpu = probe.cluster.gpu_info;
  out.options.directory_exists = [](const std::string& dir) {
    std::error_code ec;
    return std::filesystem::is_directory(dir, ec);
  };
  return out;
}

void print_text(const GlobalOptions& global, const audit::AuditResult& result)
{
  for (const auto& finding : result.findings) {
    const Diagnostic& d = finding.diagnostic;
    const char* color = d.severity == Severity::error ? "red" : d.severity == Severity::warning ? "yellow" : "cyan";
    fmt::print("{}:{}: {}: {} [{}]\n", result.path, d.where ? d.where->line : 0,
               colorize(global.color, color, to_string(d.severity)), d.message, d.rule);
    if (!d.fix.empty()) {
      fmt::print("  fix: {}{}\n", d.fix, finding.edits.empty() ? "" : " (--fix applies it)");
    }
  }
}

nlohmann::json to_json(const audit::AuditResult& result)
{
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& finding : result.findings) {
    const Diagnostic& d = finding.diagnostic;
    findings.push_back({{"rule", d.rule},
                        {"severity", to_string(d.severity)},
                        {"line", d.where ? d.where->line : 0},
                        {"column", d.where ? d.where->column : 0},
                        {"message", d.message},
                        {"fix", d.fix},
                        {"fixable", !finding.edits.empty()}});
  }
  return {{"path", result.path}, {"findings", findings}, {"unknown", result.unknown}};
}

void write_fix(const AuditArgs& args, const std::string& path, const std::string& text, const audit::AuditResult& result)
{
  const std::string fixed = audit::apply_fixes(text, result.findings);
  if (args.fix == "diff") {
    fmt::print("{}", audit::unified_diff(text, fixed, path));
    return;
  }
  if (path == "-") {
    fmt::print("{}", fixed);
    return;
  }
  if (fixed != text) {
    write_file_atomically(path, fixed);
  }
}

} // namespace

int run_audit(const GlobalOptions& global, const std::vector<std::string>& args)
{
  AuditArgs parsed = parse(global, args);
  std::vector<audit::AuditResult> results;
  bool errors = false;
  for (const auto& path : parsed.scripts) {
    const std::string text = read_input(path);
    audit::AuditOptions options = parsed.options;
    options.template_mode = parsed.force_template || path.ends_with(".mustache");
    // A relative --output is relative to where sbatch runs: the current
    // directory or, as scripts are usually submitted, the script's own.
    const std::filesystem::path script_dir = std::filesystem::path(path).parent_path();
    options.directory_exists = [script_dir, path](const std::string& dir) {
      std::error_code ec;
      return std::filesystem::is_directory(dir, ec)
             || (path != "-" && std::filesystem::is_directory(script_dir / dir, ec));
    };
    audit::AuditResult result = audit::audit_text(text, path, options);
    for (const auto& finding : result.findings) {
      errors = errors || finding.diagnostic.severity == Severity::error;
    }
    if (!parsed.fix.empty()) {
      write_fix(parsed, path, text, result);
    }
    results.push_back(std::move(result));
  }
  if (parsed.fix == "diff" || (parsed.fix == "write" && parsed.scripts.size() == 1 && parsed.scripts[0] == "-")) {
    return errors ? k_exit_job_errors : k_exit_ok;
  }
  if (parsed.format == "sarif") {
    fmt::print("{}\n", audit::to_sarif(results, "0.1.0"));
  } else if (parsed.format == "json") {
    nlohmann::json files = nlohmann::json::array();
    for (const auto& result : results) {
      files.push_back(to_json(result));
    }
    print_json({{"files", files}});
  } else {
    for (const auto& result : results) {
      print_text(global, result);
    }
  }
  return errors ? k_exit_job_errors : k_exit_ok;
}

} // namespace lg::cli
