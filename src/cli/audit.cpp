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
#include "util/process.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <map>
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
  bool gpu_given = false;
  config::LoadOptions load;
};

config::GpuSpec resolve_preset(const std::string& name, const config::LoadOptions& load)
{
  config::JobSpec probe;
  probe.cluster.gpu = name;
  config::resolve_gpu(probe, load);
  return probe.cluster.gpu_info;
}

// --gpu, else the GPU the script names, else H100 (said so in the output).
std::string choose_gpu(const AuditArgs& args, const std::string& text, audit::AuditOptions& options)
{
  if (args.gpu_given) {
    return "--gpu";
  }
  std::vector<std::string> presets;
  for (const auto& [name, file] : config::list_presets(args.load, "gpus")) {
    presets.push_back(name);
  }
  if (const auto hint = audit::gpu_from_script(text, presets)) {
    if (hint->preset == "amd" || hint->preset == "ascend") {
      // No AMD or Ascend preset: the default one stays for the generation-free
      // rules, and nothing printed names it.
      const bool amd = hint->preset == "amd";
      options.gpu_vendor = hint->preset;
      options.gpu_assumed = true;
      options.gpu_unmatched = std::string(amd ? "an AMD GPU (" : "an Ascend NPU (") + hint->evidence
                              + "), which the memory model does not know";
      return "from the script: " + hint->evidence
             + "; memory is not judged (the memory model knows NVIDIA presets only); --gpu sets a preset";
    }
    if (!hint->no_preset.empty()) {
      // Memory is not judged; the generation is, where the family has a preset.
      const std::string named = hint->name.empty() ? hint->preset : hint->name;
      options.gpu_unmatched = named + " (" + hint->evidence + "): " + hint->no_preset;
      try {
        options.gpu = resolve_preset(hint->preset, args.load);
        options.gpu_name = hint->name;
        if (!hint->name.empty()) {
          return "from the script: " + hint->evidence + " (the " + hint->preset + " preset's generation; memory is not "
                 + "judged: " + hint->no_preset + "; --gpu sets it)";
        }
        return "from the script: " + hint->evidence + " (generation only: " + hint->no_preset + "; --gpu sets it)";
      } catch (const lg::Error&) {
        options.gpu_assumed = true;
        return "assumed: the script names " + options.gpu_unmatched + "; --gpu sets it";
      }
    }
    try {
      options.gpu = resolve_preset(hint->preset, args.load);
      if (!hint->name.empty()) {
        options.gpu_name = hint->name;  // an H800 judged as the H100 80GB preset
        return "from the script: " + hint->evidence + " (judged as the " + hint->preset + " preset)";
      }
      return "from the script: " + hint->evidence;
    } catch (const lg::Error&) {
      // No such preset: keep the default for the generation-free rules, and
      // judge no memory against it.
      options.gpu_assumed = true;
      options.gpu_unmatched = hint->preset + " (" + hint->evidence + "), which has no preset";
      options.gpu_name = hint->preset;  // the note names the script's GPU, not the default preset
      return "assumed: the script names " + options.gpu_unmatched + "; --gpu sets it";
    }
  }
  options.gpu_assumed = true;
  return "assumed: the script names no GPU (partition, constraint, gres); --gpu sets it";
}

std::string read_input(const std::string& path)
{
  return read_file(path, "script", k_max_script_bytes);
}

// `bash -n` on the script text: (line, message) of the first syntax error.
// No bash here, or bash stuck: the check is skipped, never guessed.
std::optional<std::pair<int, std::string>> bash_parse_error(const std::string& text)
{
  process::Command command;
  command.program = "bash";
  command.args = {"-n"};
  command.stdin_text = text;
  command.timeout = std::chrono::seconds(10);
  process::Result result;
  try {
    result = process::run(command);
  } catch (const lg::Error&) {
    return std::nullopt;
  }
  if (result.ok() || result.signal) {
    return std::nullopt;
  }
  // "bash: line 12: syntax error near unexpected token `fi'"
  const auto at = result.err.find("line ");
  int line = 0;
  std::size_t i = at == std::string::npos ? result.err.size() : at + 5;
  while (i < result.err.size() && std::isdigit(static_cast<unsigned char>(result.err[i])) != 0) {
    line = line * 10 + (result.err[i] - '0');
    ++i;
  }
  std::string message = i + 2 <= result.err.size() ? result.err.substr(i + 2) : result.err;
  if (const auto eol = message.find('\n'); eol != std::string::npos) {
    message.resize(eol);
  }
  return std::make_pair(line > 0 ? line : 1, message);
}

// `shellcheck -f json1 -` on the script text (audit --shellcheck). Exit
// status 1 means "comments found"; 2 and up, a signal or no binary: not run.
audit::ShellcheckRun run_shellcheck(const std::string& text)
{
  process::Command command;
  command.program = "shellcheck";
  command.args = {"-f", "json1", "-"};
  command.stdin_text = text;
  command.timeout = std::chrono::seconds(30);
  audit::ShellcheckRun run;
  try {
    const process::Result result = process::run(command);
    if (!result.signal && (result.exit_code == 0 || result.exit_code == 1)) {
      run.json1 = result.out;
    } else {
      run.failure = fmt::format("shellcheck {}: {}", process::describe_status(result),
                                result.err.substr(0, result.err.find('\n')));
    }
  } catch (const lg::Error& e) {
    run.failure = e.what();
  }
  return run;
}

AuditArgs parse(const GlobalOptions& global, const std::vector<std::string>& args)
{
  po::options_description options("audit options");
  options.add_options()
    ("fix", po::value<std::string>()->implicit_value("write"), "write the corrected script (--fix=diff: print a diff)")
    ("format", po::value<std::string>(), "text | json | sarif")
    ("gpu", po::value<std::string>(), "GPU preset the scripts run on (default h100-80gb)")
    ("template", "treat the scripts as mustache templates ({{…}} are unknown values)")
    ("shellcheck", "also report shellcheck's codes that break a batch job (needs shellcheck on PATH)")
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
    error.hint = "usage: launchguard audit SCRIPT… [--fix[=diff]] [--format text|json|sarif] [--shellcheck]";
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
  out.load = load_options(parsed);
  out.gpu_given = parsed.vars.count("gpu") != 0;
  out.options.gpu = resolve_preset(out.gpu_given ? parsed.vars["gpu"].as<std::string>() : "h100-80gb", out.load);
  out.options.directory_exists = [](const std::string& dir) {
    std::error_code ec;
    return std::filesystem::is_directory(dir, ec);
  };
  out.options.parse_error = bash_parse_error;
  if (parsed.vars.count("shellcheck") != 0) {
    out.options.shellcheck = run_shellcheck;
  }
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
  if (!result.findings.empty() && result.gpu_source != "--gpu") {
    fmt::print("{}: note: GPU {} ({})\n", result.path, result.gpu, result.gpu_source);
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
  return {{"path", result.path}, {"findings", findings}, {"unknown", result.unknown},
          {"gpu", {{"preset", result.gpu}, {"source", result.gpu_source}}}};
}

// Refuse a fix whose result bash cannot parse, or that brings a finding the
// original did not have (an edit that changed more than it fixed).
// `options` are the ones the findings were made with (the file's GPU choice
// included), so the re-audit judges the edited script the same way.
void check_fixed(const audit::AuditOptions& options, const std::string& path, const std::string& text,
                 const std::string& fixed, const audit::AuditResult& result)
{
  if (fixed == text) {
    return;
  }
  const audit::AuditResult after = audit::audit_text(fixed, path, options);
  std::map<std::string, int> budget;
  bool crlf = false;
  for (const auto& finding : result.findings) {
    ++budget[finding.diagnostic.rule];
    crlf = crlf || finding.diagnostic.rule == "audit.crlf";
  }
  for (const auto& finding : after.findings) {
    // Converting CRLF makes the script readable: findings about what it
    // configures may appear then; only a parse error is refused.
    if (crlf && finding.diagnostic.rule != "audit.parse_error") {
      continue;
    }
    if (--budget[finding.diagnostic.rule] < 0) {
      InputError error("audit --fix: refused for '{}': the edited script would have a new finding ({}: {})", path,
                  finding.diagnostic.rule, finding.diagnostic.message);
      error.hint = "nothing was written; apply the fixes by hand (--fix=diff shows them)";
      throw error;
    }
  }
}

void write_fix(const AuditArgs& args, const audit::AuditOptions& options, const std::string& path, const std::string& text,
               const audit::AuditResult& result)
{
  std::string fixed = audit::apply_fixes(text, result.findings);
  check_fixed(options, path, text, fixed, result);
  const bool crlf = std::any_of(result.findings.begin(), result.findings.end(),
                                [](const audit::AuditFinding& f) { return f.diagnostic.rule == "audit.crlf"; });
  if (crlf && fixed != text) {
    // The CRLF conversion alone is applied first (no other edit is placed in
    // a script bash cannot read); the converted script's own fixes follow in
    // the same run, checked the same way, so a second --fix changes nothing.
    const audit::AuditResult converted = audit::audit_text(fixed, path, options);
    const std::string again = audit::apply_fixes(fixed, converted.findings);
    check_fixed(options, path, fixed, again, converted);
    fixed = again;
  }
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
    const std::string gpu_source = choose_gpu(parsed, text, options);
    audit::AuditResult result = audit::audit_text(text, path, options);
    result.gpu = !options.gpu_vendor.empty() ? options.gpu_vendor
                 : !options.gpu_name.empty() ? options.gpu_name
                                             : options.gpu.name;
    result.gpu_source = gpu_source;
    for (const auto& finding : result.findings) {
      errors = errors || finding.diagnostic.severity == Severity::error;
    }
    if (!parsed.fix.empty()) {
      write_fix(parsed, options, path, text, result);
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
