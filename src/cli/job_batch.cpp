#include "cli/job_batch.hpp"

#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "util/error.hpp"
#include "util/input.hpp"
#include "util/line_reader.hpp"
#include "util/terminal.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>

namespace lg::cli {

namespace po = boost::program_options;

void add_batch_options(po::options_description& options)
{
  options.add_options()("jsonl", po::value<std::string>(),
                        "also judge the jobs in FILE ('-': standard input), one JSON object per line with the job "
                        "file's sections, e.g. {\"model\": {\"preset\": \"llama3-8b\"}}");
}

bool is_batch(const ParsedArgs& parsed)
{
  return parsed.positional.size() > 1 || parsed.vars.count("jsonl") != 0;
}

namespace {

struct BatchTally
{
  int worst = k_exit_ok;
  std::size_t jobs = 0;
  std::size_t ok = 0;
  std::size_t with_errors = 0;
  std::size_t unread = 0;
};

// One input's result, whatever happens while loading or judging it.
class BatchRunner
{
public:
  BatchRunner(const GlobalOptions& global, const ParsedArgs& parsed, const JudgeOne& judge_one)
    : m_global(global),
      m_parsed(parsed),
      m_judge_one(judge_one)
  {
  }

  void run(const JobSource& source, const std::string& name)
  {
    header(name);
    int code = k_exit_ok;
    nlohmann::json document = nlohmann::json::object();
    try {
      const config::JobSpec spec = load_job(m_parsed, source);
      code = m_judge_one(spec, m_global.json ? &document : nullptr);
    } catch (const InputError& e) {
      code = report(e, k_exit_usage, document);
    } catch (const UsageError& e) {
      code = report(e, k_exit_usage, document);
    } catch (const SystemError& e) {
      code = report(e, k_exit_system, document);
    }
    finish(name, code, document);
  }

  // An input that is not a job at all (a JSON line over the limit).
  void refuse(const Error& error, const std::string& name)
  {
    header(name);
    nlohmann::json document = nlohmann::json::object();
    finish(name, report(error, k_exit_usage, document), document);
  }

  const BatchTally& tally() const { return m_tally; }

private:
  void header(const std::string& name)
  {
    if (!m_global.json) {
      fmt::print("{}==> {} <==\n", m_tally.jobs == 0 ? "" : "\n", printable(name));
      std::fflush(stdout);
    }
  }

  void finish(const std::string& name, int code, nlohmann::json& document)
  {
    count(code);
    if (m_global.json) {
      document["input"] = name;
      document["exit_code"] = code;
      fmt::print("{}\n", document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
    std::fflush(stdout);
  }

  int report(const Error& error, int code, nlohmann::json& document)
  {
    if (m_global.json) {
      document = {{"error", {{"message", error.what()}, {"hint", error.hint}}}};
    } else {
      print_error(error, stdout);  // a batch's result: on stdout, in the input's block
    }
    return code;
  }

  void count(int code)
  {
    ++m_tally.jobs;
    m_tally.worst = std::max(m_tally.worst, code);
    if (code == k_exit_ok) {
      ++m_tally.ok;
    } else if (code == k_exit_job_errors) {
      ++m_tally.with_errors;
    } else {
      ++m_tally.unread;
    }
  }

  const GlobalOptions& m_global;
  const ParsedArgs& m_parsed;
  const JudgeOne& m_judge_one;
  BatchTally m_tally;
};

bool batch_line_is_blank(const std::string& text)
{
  return std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\t'; });
}

} // namespace

int run_jobs(const GlobalOptions& global, const ParsedArgs& parsed, const JudgeOne& judge_one)
{
  if (!is_batch(parsed)) {
    nlohmann::json document;
    const int code = judge_one(load_job(parsed), global.json ? &document : nullptr);
    if (global.json) {
      print_json(document);
    }
    return code;
  }
  const std::string jsonl = parsed.vars.count("jsonl") != 0 ? parsed.vars["jsonl"].as<std::string>() : "";
  if (jsonl == "-" && std::find(parsed.positional.begin(), parsed.positional.end(), "-") != parsed.positional.end()) {
    UsageError error("a job file '-' and --jsonl - both read standard input");
    error.hint = "give the TOML job as a file, or its JSON form as a line of --jsonl";
    throw error;
  }
  BatchRunner runner(global, parsed, judge_one);
  for (const auto& path : parsed.positional) {
    JobSource source;
    source.path = path;
    runner.run(source, path);
  }
  if (!jsonl.empty()) {
    InputFile input(jsonl, "job lines");
    LineReader lines(input);
    while (auto line = lines.next()) {
      const std::string name = fmt::format("{}:{}", input.name(), line->number);
      if (line->too_long) {
        InputError error("{}: line longer than {} MiB", name, k_max_line_bytes >> 20);
        error.hint = "write one job per line; a job file's JSON form is a few KB";
        runner.refuse(error, name);
      } else if (!batch_line_is_blank(line->text)) {
        JobSource source;
        source.json_line = std::move(line->text);
        source.display = input.name();
        source.line = static_cast<int>(line->number);
        runner.run(source, name);
      }
    }
  }
  const BatchTally& tally = runner.tally();
  if (!global.json) {
    fmt::print("\n{} job(s): {} ok, {} with errors, {} not read\n", tally.jobs, tally.ok, tally.with_errors,
               tally.unread);
  }
  return tally.worst;
}

} // namespace lg::cli
