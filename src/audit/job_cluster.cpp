// Nodes, GPUs, tasks and the training world size of a script (job_from_script.hpp).
#include "audit/job_from_script.hpp"

#include "util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace lg::audit {

namespace {

int integer(const std::string& text)
{
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && end == text.data() + text.size() && v > 0 ? v : 0;
}

int option_int(const LaunchStage* stage, const char* name, int fallback)
{
  if (stage == nullptr) {
    return fallback;
  }
  const LaunchOption* option = stage->find(name);
  if (option == nullptr) {
    return fallback;
  }
  return option->value && option->value->known ? integer(option->value->text()) : 0;
}

int option_offset(const LaunchStage* stage, const char* name, int fallback)
{
  const LaunchOption* option = stage == nullptr ? nullptr : stage->find(name);
  return option == nullptr ? fallback : (option->value ? option->value->offset : option->offset);
}

int directive_int(const ScriptModel& model, const char* name, int component)
{
  const Directive* d = model.directive(name, component);
  return d == nullptr ? 0 : integer(d->value);
}

// A count from Flux's submission directives, read where no #SBATCH line
// gives it: a line of non-alphanumeric characters followed by the tag
// `FLUX:` or `flux:`, the directives grouped before the script's first other
// line (flux-core doc/man1/common/submit-submission-directives.rst, RFC 36).
// `names` are the option's spellings (`-N`, `--nodes`); `-N2`, `-N 2`,
// `--nodes=2` and a converter's `-N=2` are read. 0: none, or not a count.
int flux_count(const ScriptModel& model, std::initializer_list<std::string_view> names)
{
  const std::string& t = model.text;
  for (std::size_t l = 0; l < model.line_starts.size(); ++l) {
    const auto begin = static_cast<std::size_t>(model.line_starts[l]);
    if (model.first_command_offset >= 0 && static_cast<int>(begin) >= model.first_command_offset) {
      break;
    }
    const auto eol = t.find('\n', begin);
    const std::string line = t.substr(begin, eol == std::string::npos ? std::string::npos : eol - begin);
    std::size_t tag = 0;
    while (tag < line.size() && std::isalnum(static_cast<unsigned char>(line[tag])) == 0 && line[tag] != ' ') {
      ++tag;
    }
    while (tag < line.size() && line[tag] == ' ') {
      ++tag;
    }
    if (tag == 0 || (line.compare(tag, 5, "FLUX:") != 0 && line.compare(tag, 5, "flux:") != 0)) {
      continue;
    }
    std::string rest = line.substr(tag + 5);
    std::replace(rest.begin(), rest.end(), '\t', ' ');
    std::vector<std::string> words = lg::split(rest, ' ');
    std::erase(words, std::string());
    for (std::size_t i = 0; i < words.size(); ++i) {
      for (const std::string_view name : names) {
        if (words[i] == name && i + 1 < words.size()) {
          return integer(words[i + 1]);
        }
        if (words[i].starts_with(name) && words[i].size() > name.size()
            && (words[i][name.size()] == '=' || !name.starts_with("--"))) {
          const std::string value = words[i].substr(name.size());
          return integer(value.starts_with("=") ? value.substr(1) : value);
        }
      }
    }
  }
  return 0;
}

} // namespace

// The component an srun step runs in: --het-group=N names it, and without
// one the step runs in component 0 (Slurm srun(1), --het-group: "The default
// value is --het-group=0"); a list, a range, an unknown value, or a `:`
// separating step components (heterogeneous_jobs.html, "Launching
// Applications") spans several: -1.
int step_component(const Launch& launch, const ScriptModel& model)
{
  const LaunchStage* srun = launch.stage("srun");
  if (srun == nullptr) {
    return 0;
  }
  const Command& command = model.commands[static_cast<std::size_t>(launch.command)];
  const int program_at = launch.program ? launch.program->offset : command.end;
  for (const auto& w : command.words) {
    if (w.offset > srun->offset && w.offset < program_at && w.text() == ":") {
      return -1;
    }
  }
  const LaunchOption* group = srun->find("het-group");
  if (group == nullptr) {
    return 0;
  }
  if (!group->value || !group->value->known) {
    return -1;
  }
  const std::string& v = group->value->text();
  if (v == "0") {
    return 0;
  }
  const int n = integer(v);
  return n > 0 && n < model.components ? n : -1;
}

int gpu_count(const std::string& value)
{
  std::string text = value;
  if (const auto paren = text.find('('); paren != std::string::npos) {
    text.resize(paren);
  }
  if (const auto comma = text.find(','); comma != std::string::npos) {
    text.resize(comma);
  }
  const auto colon = text.rfind(':');
  return integer(colon == std::string::npos ? text : text.substr(colon + 1));
}

// "n[1-4]", "gpu170,gpu171", "SH-IDCA1404-10-140-54-[4,12,20,89]": how many
// hosts a Slurm hostlist expression names (0 when it cannot be read).
int hostlist_count(const std::string& list)
{
  auto number = [](const std::string& t) -> long long {
    if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos) {
      return -1;
    }
    return std::stoll(t);
  };
  long long total = 0;
  std::size_t i = 0;
  while (i < list.size()) {
    long long hosts = 1;  // the product of this expression's bracket groups
    bool named = false;
    for (; i < list.size() && list[i] != ','; ++i) {
      if (std::string_view("]${}<>*").find(list[i]) != std::string_view::npos) {
        return 0;
      }
      if (list[i] != '[') {
        named = true;
        continue;
      }
      const auto close = list.find(']', i);
      if (close == std::string::npos) {
        return 0;
      }
      const std::string inside = list.substr(i + 1, close - i - 1);
      long long group = 0;
      for (std::size_t j = 0; j <= inside.size();) {
        const auto comma = std::min(inside.find(',', j), inside.size());
        const std::string range = inside.substr(j, comma - j);
        const auto dash = range.find('-');
        const long long first = number(range.substr(0, dash));
        const long long last = dash == std::string::npos ? first : number(range.substr(dash + 1));
        if (first < 0 || last < first) {
          return 0;
        }
        group += last - first + 1;
        j = comma + 1;
      }
      hosts *= group;
      named = true;
      i = close;
    }
    if (!named || hosts > 100000) {
      return 0;
    }
    total += hosts;
    ++i;
  }
  return total < 100000 ? static_cast<int>(total) : 0;
}

void read_cluster(const ScriptModel& model, ScriptJob& job)
{
  job.component = job.launch == nullptr ? 0 : step_component(*job.launch, model);
  const int k = job.component;
  job.nodes = directive_int(model, "nodes", k);
  // --nodelist without --nodes: the job has the listed hosts (sbatch(1),
  // --nodelist; the local Slurm allocates 2 nodes for -w n[1-2]).
  if (const Directive* w = model.directive("nodelist", k); job.nodes == 0 && w != nullptr) {
    job.nodes = hostlist_count(w->value);
  }
  if (job.nodes == 0 && model.directive("nodes", k) == nullptr && model.directive("nodelist", k) == nullptr) {
    job.nodes = flux_count(model, {"-N", "--nodes"});
    job.flux_nodes = job.nodes > 0;
  }
  // With both --gres=gpu:N and --gpus-per-node=M the local Slurm 22.05
  // allocates N (the job's TRES show gres/gpu=N, in either order).
  const Directive* g = model.directive("gres", k);
  if (g != nullptr && g->value.starts_with("gpu") && gpu_count(g->value) > 0) {
    job.gpus_per_node = gpu_count(g->value);
  } else if (const Directive* d = model.directive("gpus-per-node", k)) {
    job.gpus_per_node = gpu_count(d->value);
  } else if (g != nullptr && g->value.starts_with("gpu")) {
    job.gpus_per_node = gpu_count(g->value);
  } else if (const int total = directive_int(model, "gpus", k); total > 0 && job.nodes > 0 && total % job.nodes == 0) {
    job.gpus_per_node = total / job.nodes;
  } else if (model.directives.empty()) {
    job.gpus_per_node = flux_count(model, {"--gpus-per-node"});
  } else if (const Directive* t = model.directive("gpus-per-task", k); t != nullptr && gpu_count(t->value) > 0) {
    // `--gpus-per-task=a100:2` with `--ntasks-per-node=1` (or --ntasks over
    // --nodes): the node holds its tasks' GPUs (held-out round 30's CARC job,
    // `deepspeed --num_gpus=4` on nodes given 2).
    int tasks_here = directive_int(model, "ntasks-per-node", k);
    const int all_tasks = directive_int(model, "ntasks", k);
    if (tasks_here == 0 && all_tasks > 0 && job.nodes > 0 && all_tasks % job.nodes == 0) {
      tasks_here = all_tasks / job.nodes;
    }
    job.gpus_per_node = tasks_here > 0 ? tasks_here * gpu_count(t->value) : 0;
  }
  const LaunchStage* srun = job.launch == nullptr ? nullptr : job.launch->stage("srun");
  const int srun_nodes = option_int(srun, "nodes", option_int(srun, "N", job.nodes));
  int tasks = option_int(srun, "ntasks-per-node", directive_int(model, "ntasks-per-node", k));
  // --ntasks with --ntasks-per-node: the per-node count is a maximum
  // (sbatch(1): "if used with the --ntasks option, the --ntasks option will
  // take precedence and the --ntasks-per-node will be treated as a maximum
  // count of tasks per node"; on the local Slurm 22.05, -N 2 --ntasks=2
  // --ntasks-per-node=2 ran one task per node, held-out round 31). Known only
  // when the total fills every node to it, or gives each node one.
  if (const int total = option_int(srun, "ntasks", option_int(srun, "n", directive_int(model, "ntasks", k)));
      tasks > 0 && total > 0 && srun_nodes > 0 && total != tasks * srun_nodes) {
    tasks = total == srun_nodes ? 1 : 0;
  }
  if (srun != nullptr && tasks == 0 && srun->find("ntasks-per-node") == nullptr) {
    const int total = option_int(srun, "ntasks", option_int(srun, "n", directive_int(model, "ntasks", k)));
    tasks = total > 0 && srun_nodes > 0 && total % srun_nodes == 0 ? total / srun_nodes : (total > 0 ? 0 : 1);
  }
  job.tasks_per_node = k < 0 ? 0 : tasks;
  const Launch* l = job.launch;
  if (l == nullptr) {
    return;
  }
  if (const LaunchStage* t = l->stage("torchrun")) {
    const int nnodes = option_int(t, "nnodes", 1);
    const LaunchOption* nproc = t->find("nproc-per-node");
    int per_node = option_int(t, "nproc-per-node", 1);
    if (nproc != nullptr && nproc->value && (nproc->value->text() == "gpu" || nproc->value->text() == "auto")) {
      per_node = job.gpus_per_node;
    }
    job.world = nnodes * per_node;
    job.world_nodes = nnodes;
    job.world_offset = option_offset(t, "nproc-per-node", option_offset(t, "nnodes", t->offset));
  } else if (const LaunchStage* d = l->stage("deepspeed")) {
    // DeepSpeed's runner (deepspeed/launcher/runner.py) takes its nodes and
    // slots from the hostfile when one is named (or -H/--include/--exclude
    // pick from it) and --num_nodes/--num_gpus are not given: the counts are
    // the file's, not known here. Without a hostfile it runs on the local
    // node with every local GPU.
    bool pool = false;
    for (const char* own : {"hostfile", "H", "include", "i", "exclude", "e", "no_ssh", "node_rank", "launcher"}) {
      pool = pool || d->find(own) != nullptr;
    }
    const int nodes = option_int(d, "num-nodes", pool ? 0 : 1);
    const int per_node = option_int(d, "num-gpus", pool ? 0 : job.gpus_per_node);
    job.world = nodes * per_node;
    job.world_nodes = nodes;
    job.world_offset = option_offset(d, "num-gpus", d->offset);
  } else if (const LaunchStage* a = l->stage("accelerate")) {
    // accelerate launch: --num_processes is the total over all machines,
    // --num_machines the nodes (accelerate/commands/launch.py, "The total
    // number of processes to be launched in parallel"); either left to the
    // config file is not known here. srun's tasks are the per-node
    // launchers, not the workers.
    const int processes = option_int(a, "num-processes", 0);
    const int machines = option_int(a, "num-machines", 1);
    job.world = machines > 0 && processes % machines == 0 ? processes : 0;
    job.world_nodes = job.world > 0 ? machines : 0;
    job.world_offset = option_offset(a, "num-processes", a->offset);
  } else if (const LaunchStage* m = l->stage("mpirun")) {
    job.world = option_int(m, "np", option_int(m, "n", 0));
    job.world_nodes = job.nodes > 0 && job.world % job.nodes == 0 ? job.nodes : 1;
    job.world_offset = option_offset(m, "np", m->offset);
  } else if (srun != nullptr) {
    job.world = srun_nodes * tasks;
    job.world_nodes = srun_nodes;
    job.world_offset = option_offset(srun, "ntasks-per-node", srun->offset);
    if (const Directive* tpn = model.directive("ntasks-per-node", k);
        tpn != nullptr && srun->find("ntasks-per-node") == nullptr) {
      job.world_offset = tpn->offset;
    }
  } else {
    job.world = 1;
    job.world_nodes = 1;
    job.world_offset = l->program ? l->program->offset : -1;
  }
}

} // namespace lg::audit
