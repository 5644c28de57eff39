// The program a launcher runs: torchrun told to run `python` as its script,
// and `-m` given a file name.
#include "audit/findings.hpp"
#include "audit/launch_tools.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace lg::audit::detail {

namespace {

// `torchrun --nproc_per_node 2 python train.py`: torchrun runs its first
// positional word with Python ("-u python train.py") unless --no-python
// (torch/distributed/run.py: "--no-python: Skip prepending the training
// script with 'python' - just execute it directly"), so Python looks for a
// script file named `python` and every worker stops ("can't open file").
void torchrun_runs_python(FindingContext& c)
{
  const Launch* l = c.job.launch;
  const LaunchStage* torchrun = l == nullptr ? nullptr : l->stage("torchrun");
  if (torchrun == nullptr || torchrun->find("no_python") != nullptr || torchrun->find("no-python") != nullptr
      || torchrun->find("module") != nullptr || torchrun->find("m") != nullptr) {
    return;
  }
  // torchrun's first positional word, read from the source text after
  // `torchrun` (expansions there may be several words or none): every option
  // takes a value but these flags (torch/distributed/run.py).
  const Command& cmd = c.model.commands[static_cast<std::size_t>(l->command)];
  const std::string& t = c.model.text;
  std::size_t at = static_cast<std::size_t>(torchrun->offset);
  auto next_token = [&](std::size_t& from) {
    while (from < static_cast<std::size_t>(cmd.end)
           && (t[from] == ' ' || t[from] == '\t' || t[from] == '\n' || (t[from] == '\\' && from + 1 < t.size() && t[from + 1] == '\n'))) {
      ++from;
    }
    const auto end = std::min(t.find_first_of(" \t\n", from), static_cast<std::size_t>(cmd.end));
    std::string token = from < end ? t.substr(from, end - from) : std::string();
    const std::size_t begin = from;
    from = end;
    return std::make_pair(token, begin);
  };
  next_token(at);  // "torchrun" itself
  std::string program;
  std::size_t program_at = 0;
  while (at < static_cast<std::size_t>(cmd.end)) {
    auto [token, begin] = next_token(at);
    if (token.empty()) {
      break;
    }
    if (token.starts_with("-")) {
      const std::string name = normalise_option(token.substr(0, token.find('=')));
      const bool flag = name == normalise_option("--standalone") || name == normalise_option("--run-path");
      if (token.find('=') == std::string::npos && !flag) {
        next_token(at);  // its value
      }
      continue;
    }
    program = token;
    program_at = begin;
    break;
  }
  const std::string base = program.substr(program.rfind('/') == std::string::npos ? 0 : program.rfind('/') + 1);
  if (base != "python" && base != "python3" && !(base.starts_with("python3.") && base.size() <= 10)) {
    return;
  }
  c.add(Severity::error, "audit.torchrun_python",
        "torchrun's program is `python`: torchrun runs it with Python itself (`python -u python …`), so each worker "
        "looks for a script file named `python` and stops (\"can't open file\")",
        "drop `python` (torchrun … train.py), or pass --no-python to run a program as given",
        static_cast<int>(program_at));
}

// `python -m pkg.train.py`: -m takes a module name; Python's runpy looks for
// a module "py" inside pkg.train and stops ("Error while finding module
// specification …"; runpy.py adds "Try using 'pkg.train' instead of
// 'pkg.train.py' as the module name").
void module_with_py_suffix(FindingContext& c)
{
  for (const auto& l : c.model.launches) {
    if (!l.program || !l.program->known || !l.program->text().ends_with(".py")) {
      continue;
    }
    bool module = l.module;
    for (const auto& stage : l.stages) {
      module = module || ((stage.tool == "torchrun" || stage.tool == "deepspeed")
                          && (stage.find("m") != nullptr || stage.find("module") != nullptr));
    }
    if (!module) {
      continue;
    }
    const std::string& name = l.program->text();
    c.add(Severity::error, "audit.module_name",
          fmt::format("-m {} names a file, not a module: Python's -m looks for a module called \"py\" inside "
                      "{} and the program stops before it starts (runpy: \"Try using '{}' instead of '{}' as the "
                      "module name\")",
                      name, name.substr(0, name.size() - 3), name.substr(0, name.size() - 3), name),
          fmt::format("write -m {} (or drop -m and give the file's path)", name.substr(0, name.size() - 3)),
          l.program->offset);
  }
}

} // namespace

void program_findings(FindingContext& c)
{
  torchrun_runs_python(c);
  module_with_py_suffix(c);
}

} // namespace lg::audit::detail
