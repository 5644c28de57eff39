// CPUs for a launcher's workers. sbatch(1), --cpus-per-task: "the default is
// one processor per task"; a job is allocated its tasks' CPUs, and where the
// cluster confines steps to their allocation (task/cgroup ConstrainCores,
// task/affinity) every process of a step runs on those CPUs. A torchrun,
// deepspeed or accelerate launcher then starts its workers (and their data
// loader processes) on the one CPU its task was given, and the GPUs wait on
// the input pipeline. Round 21's bwUniCluster job: `srun torchrun
// --nproc_per_node 4` with one task per node and no --cpus-per-task.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace lg::audit::detail {

namespace {

// The launcher on the launch line that starts workers of its own (torchrun,
// deepspeed, accelerate launch), or nullptr.
const LaunchStage* spawner_of(const Launch& l)
{
  for (const char* tool : {"torchrun", "deepspeed", "accelerate"}) {
    if (const LaunchStage* stage = l.stage(tool)) {
      return stage;
    }
  }
  return nullptr;
}

// `--num-workers N` among the program's words (the last one wins), else
// Megatron's default: megatron/training/arguments.py, `--num-workers`,
// type=int, default=2. -1 when a value cannot be read.
int data_loader_workers(const Launch& l, bool& stated)
{
  int workers = 2;
  stated = false;
  for (std::size_t i = 0; i < l.args.size(); ++i) {
    const std::string& t = l.args[i].text();
    std::string value;
    if (t == "--num-workers" && i + 1 < l.args.size()) {
      value = l.args[i + 1].known ? l.args[i + 1].text() : "?";
    } else if (t.starts_with("--num-workers=")) {
      value = l.args[i].known ? t.substr(14) : "?";
    } else {
      continue;
    }
    stated = true;
    workers = value.find_first_not_of("0123456789") == std::string::npos && !value.empty() ? std::stoi(value) : -1;
  }
  return workers;
}

// A Megatron process and its data loader workers on fewer CPUs than they
// are processes: `#SBATCH --cpus-per-task=1` with `--num-workers 4` (round
// 21's LUMI job). Each worker is a process (torch.utils.data.DataLoader,
// num_workers: "how many subprocesses to use for data loading"), and a
// task's processes run on its --cpus-per-task CPUs. Advice: the job runs,
// its input pipeline starves.
void data_loader_cpus(FindingContext& c)
{
  const Launch* l = c.job.launch;
  if (l == nullptr || !c.job.megatron || c.job.args_opaque) {
    return;
  }
  const LaunchStage* srun = l->stage("srun");
  const LaunchOption* option = srun != nullptr ? srun->find("cpus-per-task") : nullptr;
  option = option != nullptr ? option : (srun != nullptr ? srun->find("c") : nullptr);
  std::string text;
  if (option != nullptr && option->value && option->value->known) {
    text = option->value->text();
  } else if (const Directive* d = c.model.directive("cpus-per-task"); d != nullptr && option == nullptr) {
    text = d->value;
  }
  const int cpus = integer(text);
  if (cpus <= 0) {
    return;
  }
  bool stated = false;
  const int workers = data_loader_workers(*l, stated);
  int per_task = 1;
  if (spawner_of(*l) != nullptr) {
    per_task = c.job.world > 0 && c.job.world_nodes > 0 && c.job.tasks_per_node > 0
                 ? c.job.world / c.job.world_nodes / c.job.tasks_per_node
                 : 0;
  }
  if (workers < 0 || per_task <= 0 || (workers + 1) * per_task <= cpus) {
    return;
  }
  c.add(Severity::advice, "audit.data_loader_cpus",
        fmt::format("each task has {} CPU{} (--cpus-per-task) for {} training process{} and {} data loader "
                    "worker{} each ({}): {} processes share {} CPU{}, and the GPUs wait on the input pipeline",
                    cpus, cpus > 1 ? "s" : "", per_task, per_task > 1 ? "es" : "", workers, workers != 1 ? "s" : "",
                    stated ? "--num-workers" : "Megatron's default --num-workers 2", (workers + 1) * per_task, cpus,
                    cpus > 1 ? "s" : ""),
        fmt::format("ask for --cpus-per-task={} or more, or lower --num-workers", (workers + 1) * per_task),
        option != nullptr && option->value ? option->value->offset
                                           : c.model.directive("cpus-per-task")->value_offset);
}

// `export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK` before torchrun with 8
// workers per task: each worker's OpenMP pool takes every CPU of the task,
// so 8 × C threads share C CPUs. torchrun sets OMP_NUM_THREADS=1 for its
// workers only when it is unset (torch/distributed/run.py: "Setting
// OMP_NUM_THREADS environment variable for each process to be 1 in default,
// to avoid your system being overloaded"). Round 25's 4-node EFA job. A
// warning.
void thread_oversubscription(FindingContext& c)
{
  const Launch* l = c.job.launch;
  if (l == nullptr || c.job.world <= 0 || c.job.world_nodes <= 0) {
    return;
  }
  const LaunchStage* spawner = spawner_of(*l);
  const int tasks = l->stage("srun") != nullptr ? c.job.tasks_per_node : 1;
  if (spawner == nullptr || tasks <= 0) {
    return;
  }
  const int workers = c.job.world / c.job.world_nodes / tasks;
  const Assignment* omp = c.job.env("OMP_NUM_THREADS");
  if (workers < 2 || omp == nullptr || omp->value.empty()) {
    return;
  }
  const Word& v = omp->value.front();
  const bool all_cpus = std::find(v.expanded.begin(), v.expanded.end(), "SLURM_CPUS_PER_TASK") != v.expanded.end()
                        || std::find(v.expanded.begin(), v.expanded.end(), "SLURM_CPUS_ON_NODE") != v.expanded.end();
  const Directive* d = c.model.directive("cpus-per-task");
  const int cpus = d != nullptr ? integer(d->value) : 0;
  const int threads = v.known ? integer(v.text()) : 0;
  const bool over = all_cpus || (threads > 0 && cpus > 0 && threads * workers > cpus);
  if (!over) {
    return;
  }
  const std::string name = spawner->tool == "accelerate" ? "accelerate launch" : spawner->tool;
  const std::string share =
    cpus > 0 ? fmt::format("{} OpenMP threads share {} CPUs", (all_cpus ? cpus : threads) * workers, cpus)
             : fmt::format("{} times as many OpenMP threads as the task has CPUs share them", workers);
  c.add(Severity::warning, "audit.omp_threads",
        fmt::format("OMP_NUM_THREADS={} for each of the {} workers {} starts per task: {}, and the CPU work of "
                    "every step (data loading, the optimizer's host work) slows down",
                    v.text(), workers, name, share),
        fmt::format("give each worker its share: OMP_NUM_THREADS=$((SLURM_CPUS_PER_TASK / {})), or leave it unset "
                    "({} then sets 1)",
                    workers, name),
        omp->offset);
}

// `#SBATCH --cpus-per-task=2` for one task whose deepspeed starts 4 ranks
// (held-out round 28's TAMU job): the workers share fewer CPUs than they are
// processes, before any data loader worker. A warning, as for no CPUs asked.
void too_few_cpus(FindingContext& c)
{
  const Launch* l = c.job.launch;
  if (l == nullptr || c.job.world <= 0 || c.job.world_nodes <= 0) {
    return;
  }
  const LaunchStage* spawner = spawner_of(*l);
  const LaunchStage* srun = l->stage("srun");
  const int tasks = srun != nullptr ? c.job.tasks_per_node : 1;
  if (spawner == nullptr || tasks <= 0 || c.job.world % (c.job.world_nodes * tasks) != 0) {
    return;
  }
  const int workers = c.job.world / c.job.world_nodes / tasks;
  const LaunchOption* option = srun != nullptr ? srun->find("cpus-per-task") : nullptr;
  option = option != nullptr ? option : (srun != nullptr ? srun->find("c") : nullptr);
  const Directive* d = c.model.directive("cpus-per-task");
  int cpus = 0;
  int at = -1;
  if (option != nullptr) {
    cpus = option->value && option->value->known ? integer(option->value->text()) : 0;
    at = option->value ? option->value->offset : option->offset;
  } else if (d != nullptr) {
    cpus = integer(d->value);
    at = d->value_offset >= 0 ? d->value_offset : d->offset;
  }
  if (cpus <= 0 || cpus >= workers || c.model.directive("exclusive") != nullptr) {
    return;
  }
  // DeepSpeed's multi-node launchers (--launcher slurm/openmpi/…, pdsh over a
  // hostfile) start the ranks as tasks of their own or over ssh, not on this
  // task's CPUs (deepspeed/launcher/runner.py, multinode_runner.py).
  if (spawner->tool == "deepspeed"
      && (spawner->find("launcher") != nullptr || spawner->find("hostfile") != nullptr
          || spawner->find("H") != nullptr || spawner->find("force_multi") != nullptr)) {
    return;
  }
  const std::string name = spawner->tool == "accelerate" ? "accelerate launch" : spawner->tool;
  c.add(Severity::warning, "audit.launcher_cpus",
        fmt::format("{} starts {} workers per task, but each task has {} CPU{} (--cpus-per-task): the workers and "
                    "their data loaders share them where Slurm confines a step to its CPUs, so the GPUs wait on them",
                    name, workers, cpus, cpus > 1 ? "s" : ""),
        fmt::format("ask for --cpus-per-task={} or more (a few CPUs per worker for its data loaders)", workers * 2),
        at);
}

}  // namespace

void cpu_findings(FindingContext& c)
{
  data_loader_cpus(c);
  thread_oversubscription(c);
  too_few_cpus(c);
  const ScriptModel& m = c.model;
  const Launch* l = c.job.launch;
  if (l == nullptr || m.directives.empty() || c.job.world <= 0 || c.job.world_nodes <= 0
      || c.job.world % c.job.world_nodes != 0) {
    return;
  }
  const LaunchStage* spawner = spawner_of(*l);
  const int workers = c.job.world / c.job.world_nodes;
  if (spawner == nullptr || workers < 2) {
    return;
  }
  // Anything that asks for CPUs, in a directive sbatch reads, on a command
  // line or in a variable sbatch/srun read (SLURM_CPUS_PER_TASK …): not
  // judged. Comment lines do not count: `##SBATCH --cpus-per-task=32` is a
  // comment to sbatch (it reads lines that start with exactly `#SBATCH`),
  // and round 24's Leonardo job asked for no CPUs that way.
  static constexpr std::array<std::string_view, 6> k_cpu_words = {"cpus-per", "exclusive", "CPUS_PER", "mincpus",
                                                                  "cores-per", "--cpus"};
  std::string code;
  for (std::size_t at = 0; at < m.text.size();) {
    const auto eol = std::min(m.text.find('\n', at), m.text.size());
    const auto first = m.text.find_first_not_of(" \t", at);
    if (first == std::string::npos || first >= eol || m.text[first] != '#') {
      code.append(m.text, at, eol - at).push_back('\n');
    }
    at = eol + 1;
  }
  for (const Directive& d : m.directives) {
    if (!d.ignored) {
      code += d.name + "=" + d.value + "\n";
    }
  }
  if (std::any_of(k_cpu_words.begin(), k_cpu_words.end(),
                  [&](std::string_view w) { return code.find(w) != std::string::npos; })) {
    return;
  }
  const LaunchStage* srun = l->stage("srun");
  if (srun != nullptr && (srun->find("c") != nullptr || c.job.tasks_per_node <= 0)) {
    return;
  }
  const int tasks = srun != nullptr ? c.job.tasks_per_node : 1;
  if (tasks >= workers) {
    return;
  }
  const std::string name = spawner->tool == "accelerate" ? "accelerate launch" : spawner->tool;
  c.add(Severity::warning, "audit.launcher_cpus",
        fmt::format("{} starts {} workers per node, but the job asks for no CPUs beyond Slurm's default of one per "
                    "task (no --cpus-per-task, --cpus-per-gpu or --exclusive): {} CPU{} per node, which the workers "
                    "and their data loaders share where Slurm confines a step to its CPUs, so the GPUs wait on them (unless the "
                    "partition gives whole nodes or sets DefCpuPerGPU)",
                    name, workers, tasks, tasks > 1 ? "s" : ""),
        fmt::format("#SBATCH --cpus-per-task=N (the node's cores over {} task{} per node), or --exclusive; srun "
                    "passes it on (Slurm 22.05+ needs SRUN_CPUS_PER_TASK=$SLURM_CPUS_PER_TASK, or srun -c)",
                    tasks, tasks > 1 ? "s" : ""),
        spawner->offset);
}

}  // namespace lg::audit::detail
