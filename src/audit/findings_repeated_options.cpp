// `srun --export=ALL,A=1 --export=B train.sh`: srun, like sbatch, keeps the
// last value of a single-valued option. On the local Slurm 22.05 a step run
// with `--export=ALL,XX=1 --export=AAA` got only AAA (no PATH: "execve():
// bash: No such file or directory"), and `--export=AAA --export=ALL` the whole
// environment. Held-out round 26: three `srun --export` flags on one launch.
// The launchers' own options too: torchrun, accelerate launch and deepspeed
// read theirs with argparse, whose store action keeps the last value (Python
// argparse docs, "action"); held-out round 28's `accelerate launch
// --machine_rank $SLURM_NODEID … --machine_rank $SLURM_PROCID`.
#include "audit/findings.hpp"

#include "audit/launch_tools.hpp"

#include <fmt/format.h>

#include <map>
#include <string>

namespace lg::audit::detail {

namespace {

// srun's single-valued options, by the long name their short spellings mean
// (srun(1)).
std::string single_valued(const std::string& name)
{
  static const std::map<std::string, std::string> k_short = {
    {"N", "nodes"}, {"n", "ntasks"}, {"c", "cpus-per-task"}, {"t", "time"},   {"o", "output"},
    {"e", "error"}, {"J", "job-name"}, {"p", "partition"},  {"G", "gpus"}, {"w", "nodelist"}};
  if (const auto it = k_short.find(name); it != k_short.end()) {
    return it->second;
  }
  const std::string n = normalise_option(name);
  for (const char* long_name :
       {"export", "nodes", "ntasks", "ntasks-per-node", "cpus-per-task", "gres", "gpus", "gpus-per-node",
        "gpus-per-task", "time", "output", "error", "job-name", "partition", "mem", "nodelist", "container-image",
        "container-name", "container-workdir", "cpu-bind", "gpu-bind", "mpi", "distribution"}) {
    if (n == normalise_option(long_name)) {
      return long_name;
    }
  }
  return {};
}

struct Given
{
  std::string name;  // as written, without dashes
  std::string value;
  bool known = true;
  int offset = -1;
};

std::string spelled(const Given& o)
{
  return fmt::format("{}{}{}{}", o.name.size() == 1 ? "-" : "--", o.name, o.name.size() == 1 ? " " : "=", o.value);
}

// The options of `srun …` up to its program, read from the words as written
// (srun_grammar: which take no value); a word not known when the script is
// read (`srun $EXTRA_FLAGS --export …`) is stepped over, as it may hold any
// options. Read from the command, not from the launch: a launch whose words
// cannot all be read is not one, and its options still count.
std::vector<Given> srun_options(const Command& command)
{
  std::vector<Given> out;
  const auto& w = command.words;
  const OptionGrammar& g = srun_grammar();
  for (std::size_t i = 1; i < w.size(); ++i) {
    if (!w[i].known) {
      continue;
    }
    const std::string& t = w[i].text();
    if (t.starts_with("--") && t.size() > 2) {
      const auto eq = t.find('=');
      Given o{t.substr(2, eq == std::string::npos ? std::string::npos : eq - 2), {}, true, w[i].offset};
      if (eq != std::string::npos) {
        o.value = t.substr(eq + 1);
      } else if (g.flags.count(normalise_option(o.name)) != 0) {
        continue;
      } else if (i + 1 < w.size()) {
        ++i;
        o.value = w[i].text();
        o.known = w[i].known;
      }
      out.push_back(std::move(o));
    } else if (t.size() >= 2 && t[0] == '-' && t[1] != '-') {
      if (g.short_flags.find(t[1]) != std::string::npos) {
        continue;
      }
      Given o{t.substr(1, 1), t.substr(2), true, w[i].offset};
      if (t.size() == 2 && i + 1 < w.size()) {
        ++i;
        o.value = w[i].text();
        o.known = w[i].known;
      }
      out.push_back(std::move(o));
    } else {
      break;  // the program
    }
  }
  return out;
}

// `torchrun --nnodes 2 … --nnodes 4`: the first has no effect. Per stage, on
// the options the launch reader placed (their values as written).
void repeated_launcher_options(FindingContext& c)
{
  for (const Launch& l : c.model.launches) {
    for (const LaunchStage& stage : l.stages) {
      if (stage.tool != "torchrun" && stage.tool != "accelerate" && stage.tool != "deepspeed") {
        continue;
      }
      for (const LaunchOption& o : stage.options) {
        const LaunchOption* again = stage.given_again(o);
        if (again == nullptr || !o.value || !again->value || o.value->text() == again->value->text()) {
          continue;
        }
        c.add(Severity::advice, "audit.option_repeated",
              fmt::format("{} --{} {} is given again later on the line (--{} {}): {} keeps the last value, so this one "
                          "has no effect",
                          stage.tool, o.name, o.value->text(), again->name, again->value->text(), stage.tool),
              "keep one with the value you mean", o.offset);
      }
    }
  }
}

} // namespace

void repeated_option_findings(FindingContext& c)
{
  repeated_launcher_options(c);
  for (const Command& command : c.model.commands) {
    if (command.words.empty() || !command.words[0].known || command.words[0].offset != command.begin
        || command.words[0].text() != "srun") {
      continue;
    }
    const std::vector<Given> os = srun_options(command);
    for (std::size_t i = 0; i < os.size(); ++i) {
      const std::string name = single_valued(os[i].name);
      if (name.empty() || !os[i].known) {
        continue;
      }
      for (std::size_t k = i + 1; k < os.size(); ++k) {
        if (single_valued(os[k].name) != name) {
          continue;
        }
        if (os[k].known && os[k].value != os[i].value) {
          const bool env = name == "export";
          c.add(env ? Severity::warning : Severity::advice, "audit.option_repeated",
                fmt::format("srun {} is given again later on the line ({}): srun keeps the last value, so this one "
                            "has no effect{}",
                            spelled(os[i]), spelled(os[k]),
                            env ? "; the tasks get only the last list's variables (and all of them only with ALL)"
                                : ""),
                env ? "give one --export with every name: --export=ALL,A=1,B=2" : "keep one with the value you mean",
                os[i].offset);
        }
        break;
      }
    }
  }
}

} // namespace lg::audit::detail
