// The program a launcher runs: torchrun told to run `python` as its script,
// a launcher given another launcher as its script, and `-m` given a file
// name.
#include "audit/findings.hpp"
#include "audit/launch.hpp"
#include "audit/launch_tools.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

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

// A word before the program that may be several words or the program itself:
// an unknown one other than `--option=$VALUE`, whose name is written out (its
// value takes the place after '=').
bool unreadable_before_program(const std::vector<Word>& words, int program_offset)
{
  return std::any_of(words.begin(), words.end(), [&](const Word& w) {
    if (w.offset < 0 || w.offset >= program_offset || w.known) {
      return false;
    }
    const std::size_t eq = w.text().find('=');
    if (!w.text().starts_with("--") || eq == std::string::npos) {
      return true;
    }
    const auto& offsets = w.value.offsets;
    return std::any_of(offsets.begin(), offsets.begin() + static_cast<std::ptrdiff_t>(std::min(eq, offsets.size())),
                       [](int at) { return at <= -2; });
  });
}

void launcher_runs_launcher(FindingContext& c)
{
  for (const auto& l : c.model.launches) {
    report_launcher_program(c, l, c.model.commands[static_cast<std::size_t>(l.command)].words, "");
  }
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

// `accelerate launch … srun python train.py`, `torchrun … srun …`: the
// spawning launchers run their first positional word with Python
// (torch/distributed/run.py: the training script, "-u" prepended unless
// --no-python; accelerate: sys.executable before the script unless
// --no_python, src/accelerate/utils/launch.py prepare_simple_launcher_cmd_env,
// or torch.distributed.run for several GPUs; deepspeed's runner
// deepspeed/launcher/launch.py likewise), so Python looks for a
// script file named `srun` and every worker stops ("can't open file"). The
// launcher named there was meant to start this one.
bool report_launcher_program(FindingContext& c, const Launch& l, const std::vector<Word>& words,
                             const std::string& as_meant)
{
  static const std::vector<std::string> k_spawners = {"torchrun", "accelerate", "deepspeed"};
  static const std::vector<std::string> k_launchers = {"srun",      "mpirun",     "mpiexec", "torchrun",
                                                       "deepspeed", "accelerate", "bash",    "sh"};
  if (l.stages.empty() || !l.python || l.module || !l.program || !l.program->known
      || std::find(k_spawners.begin(), k_spawners.end(), l.stages.back().tool) == k_spawners.end()) {
    return false;
  }
  const LaunchStage& spawner = l.stages.back();
  const std::string base = basename_of(l.program->text());
  if (std::find(k_launchers.begin(), k_launchers.end(), base) == k_launchers.end()
      || spawner.find("no_python") != nullptr || spawner.find("no-python") != nullptr
      || unreadable_before_program(words, l.program->offset)) {
    return false;
  }
  const std::string name = spawner.tool == "accelerate" ? "accelerate launch" : spawner.tool;
  c.add(Severity::error, "audit.launcher_program",
        fmt::format("{}{}'s program is `{}`: {} runs its script with Python (`python {} …`), so each worker looks "
                    "for a Python file named `{}` and stops (\"can't open file\")",
                    as_meant, name, base, name, l.program->text(), base),
        fmt::format("start {} outside: `{} … {} … SCRIPT.py` (one {} per node), or drop `{}`", name, base, name, name,
                    base),
        l.program->offset);
  return true;
}

void program_findings(FindingContext& c)
{
  torchrun_runs_python(c);
  launcher_runs_launcher(c);
  module_with_py_suffix(c);
}

} // namespace lg::audit::detail
