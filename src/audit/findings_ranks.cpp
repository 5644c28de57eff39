// Ranks: per-task Slurm variables expanded once on the batch host, and a
// multi-node accelerate launch or torchrun that is given no machine (node) rank.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

namespace lg::audit::detail {

namespace {

bool per_task(const std::string& name)
{
  return name == "SLURM_PROCID" || name == "SLURM_LOCALID" || name == "SLURM_NODEID" || name == "SLURM_TASK_PID"
         || name == "SLURM_GTIDS";
}

// Severity for a per-task variable: error when the tasks provably differ in
// it, nothing when there is provably one value. SLURM_NODEID numbers the
// nodes and SLURM_LOCALID the tasks of one node ("Node local task ID for the
// process within a job", sbatch(1) OUTPUT ENVIRONMENT VARIABLES), so with one
// task per node every task's SLURM_LOCALID is 0, the batch host's value; the
// others number the tasks of the whole job.
std::optional<Severity> per_task_severity(const ScriptJob& job, const std::string& name)
{
  const int nodes = job.nodes;
  const int tasks = job.tasks_per_node;
  const bool node_level = name == "SLURM_NODEID";
  const bool node_local = name == "SLURM_LOCALID";
  // Several tasks on one node are already several tasks, whatever the node count.
  const int many = node_level   ? nodes
                   : node_local ? tasks
                                : (nodes > 0 && tasks > 0 ? nodes * tasks : (tasks > 1 ? tasks : 0));
  if (many == 1 || (!node_level && !node_local && nodes == 1 && tasks == 1)) {
    return std::nullopt;
  }
  return many > 1 ? Severity::error : Severity::warning;
}

// The option whose value the expansion at `offset` is, read on its own line
// (`--node_rank=$X`, `--machine_rank "$X"`), without its dashes' spelling
// changed; "" when the word before is not an option.
std::string option_before(const ScriptModel& m, int offset)
{
  const auto line_begin = static_cast<std::size_t>(m.line_begin(m.line_of(offset)));
  std::string before = m.text.substr(line_begin, static_cast<std::size_t>(offset) - line_begin);
  while (!before.empty()
         && (before.back() == ' ' || before.back() == '\t' || before.back() == '"' || before.back() == '\'')) {
    before.pop_back();
  }
  if (!before.empty() && before.back() == '=') {
    before.pop_back();
  }
  const auto space = before.find_last_of(" \t");
  const std::string word = space == std::string::npos ? before : before.substr(space + 1);
  return word.starts_with("--") ? word : std::string();
}

bool node_rank_option(const std::string& option)
{
  return option == "--node_rank" || option == "--node-rank" || option == "--machine_rank" || option == "--machine-rank";
}

// The rendezvous backend the launch line gives torchrun, itself or through
// accelerate launch (which hands --rdzv_backend to torchrun), if known.
std::optional<std::string> rendezvous_backend(const Launch* l)
{
  for (const char* tool : {"torchrun", "accelerate"}) {
    const LaunchStage* stage = l != nullptr ? l->stage(tool) : nullptr;
    const LaunchOption* backend = stage != nullptr ? stage->find("rdzv_backend") : nullptr;
    if (backend != nullptr && backend->value && backend->value->known) {
      return backend->value->text();
    }
  }
  return std::nullopt;
}

// A node rank taken from the batch host that does no harm: on one node the
// batch host's 0 is the only node's rank; under a dynamic rendezvous (c10d,
// etcd) torchrun ignores --node_rank and ranks come from the rendezvous.
bool harmless_node_rank(const FindingContext& c, const VarUse& use, const Launch* launch)
{
  const std::string option = option_before(c.model, use.offset);
  if (!node_rank_option(option)) {
    return false;
  }
  if (c.job.nodes == 1) {
    return true;
  }
  if (const auto backend = rendezvous_backend(launch)) {
    return *backend != "static";
  }
  // Not resolved through the launch line: read the same line of the script.
  const std::string& t = c.model.text;
  const auto line_begin = static_cast<std::size_t>(c.model.line_begin(c.model.line_of(use.offset)));
  const auto eol = t.find('\n', static_cast<std::size_t>(use.offset));
  const std::string rest = t.substr(line_begin, eol == std::string::npos ? std::string::npos : eol - line_begin);
  return rest.find("rdzv_backend c10d") != std::string::npos || rest.find("rdzv_backend=c10d") != std::string::npos
         || rest.find("rdzv-backend=c10d") != std::string::npos || rest.find("rdzv-backend c10d") != std::string::npos;
}

// accelerate launch that provably runs the program in place (one process per
// machine, accelerate/commands/launch.py simple_launcher): it starts no
// workers of its own and sets no ranks.
bool runs_in_place(const LaunchStage& accelerate)
{
  const LaunchOption* processes = accelerate.find("num_processes");
  const LaunchOption* machines = accelerate.find("num_machines");
  const int p = processes != nullptr && processes->value && processes->value->known ? integer(processes->value->text())
                                                                                    : 0;
  const int m = machines == nullptr                         ? 1
                : machines->value && machines->value->known ? integer(machines->value->text())
                                                            : 0;
  return accelerate.find("multi_gpu") == nullptr && p > 0 && m > 0 && p <= m;
}

// A launcher on the launch line that starts its own workers (or may: an
// accelerate launch whose counts are not known).
bool may_spawn(const Launch* l)
{
  if (l == nullptr) {
    return false;
  }
  return std::any_of(l->stages.begin(), l->stages.end(), [](const LaunchStage& s) {
    return s.tool == "torchrun" || s.tool == "deepspeed" || (s.tool == "accelerate" && !runs_in_place(s));
  });
}

// The variables a spawning launcher sets for every worker it starts, over
// what it inherited: torch elastic's agent, which torchrun, python -m
// torch.distributed.run and accelerate launch run (pytorch/pytorch
// torch/distributed/elastic/agent/server/local_elastic_agent.py,
// _start_workers: LOCAL_RANK, RANK, GROUP_RANK, ROLE_RANK, LOCAL_WORLD_SIZE,
// WORLD_SIZE …), and DeepSpeed's per-node launcher (deepspeedai/DeepSpeed
// deepspeed/launcher/launch.py: RANK, LOCAL_RANK, WORLD_SIZE). NODE_RANK
// none of them reads (torchrun's --node-rank default comes from
// PET_NODE_RANK, torch/distributed/argparse_util.py), and their workers get
// their node's rank as GROUP_RANK.
bool launcher_sets(const std::string& name)
{
  return name == "RANK" || name == "LOCAL_RANK" || name == "NODE_RANK" || name == "GROUP_RANK" || name == "ROLE_RANK"
         || name == "WORLD_SIZE" || name == "LOCAL_WORLD_SIZE";
}

// Batch-shell expansions of per-task variables that reach tasks: in a srun or
// mpirun launch line, through a variable that launch line expands, or through
// an exported variable (every task inherits the batch host's value), except
// an exported rank a spawning launcher sets again for its workers.
void per_task_variables(FindingContext& c)
{
  const Launch* l = c.job.launch;
  const bool remote = l != nullptr && (l->has("srun") || l->has("mpirun"));
  std::set<std::string> expanded;
  if (remote) {
    for (const auto& w : c.model.commands[static_cast<std::size_t>(l->command)].words) {
      expanded.insert(w.expanded.begin(), w.expanded.end());
    }
  }
  const int launch_begin = remote ? c.model.commands[static_cast<std::size_t>(l->command)].begin : -1;
  const bool spawning = remote && may_spawn(l);
  for (const auto& use : c.model.uses) {
    if (!use.batch_shell || !per_task(use.name)) {
      continue;
    }
    bool relevant = remote && use.command == l->command;
    // Any srun/mpirun step of the script, not only the training launch
    // (round 24's Alvis job tries three launchers, one after another).
    const Launch* own = remote && use.command == l->command ? l : nullptr;
    for (const Launch& other : c.model.launches) {
      if (own == nullptr && other.command == use.command && (other.has("srun") || other.has("mpirun"))) {
        own = &other;
        relevant = true;
      }
    }
    for (const auto& a : c.model.assignments) {
      if (a.command != use.command || a.prefix) {
        continue;
      }
      const bool through_launch = remote && a.offset < launch_begin && expanded.count(a.name) != 0;
      const bool reset_by_launcher = spawning && launcher_sets(a.name);
      if (through_launch || (a.exported && !reset_by_launcher)) {
        relevant = true;
      }
    }
    auto severity = per_task_severity(c.job, use.name);
    if (!relevant || !severity || harmless_node_rank(c, use, own != nullptr ? own : l)) {
      continue;
    }
    // The value of a launcher option given again later on the line: it has
    // no effect (audit.option_repeated says so); the later one is judged.
    const Launch* at = own != nullptr ? own : l;
    if (at != nullptr && std::any_of(at->stages.begin(), at->stages.end(), [&](const LaunchStage& s) {
          const LaunchOption* o = s.option_at(use.offset);
          return o != nullptr && s.given_again(*o) != nullptr;
        })) {
      continue;
    }
    // `TRITON_CACHE_DIR=/tmp/triton_cache_${SLURM_PROCID}`: a per-task path
    // (a cache, a log, a scratch directory), not a rank: the tasks share one
    // directory, and the job runs. A warning, with a fix about paths.
    const auto holder = std::find_if(c.model.assignments.begin(), c.model.assignments.end(), [&](const Assignment& a) {
      return a.command == use.command && !a.prefix && a.value_offset >= 0 && use.offset >= a.value_offset
             && use.offset < a.value_end;
    });
    // `export NODE_RANK=$SLURM_NODEID`, then `--node_rank=$NODE_RANK` under a
    // dynamic rendezvous: torchrun ignores the node rank there (round 27's
    // c10d job), as for the option written directly.
    if (holder != c.model.assignments.end()
        && (holder->name.find("NODE_RANK") != std::string::npos || holder->name.find("MACHINE_RANK") != std::string::npos)) {
      const auto backend = rendezvous_backend(own != nullptr ? own : l);
      if (backend && *backend != "static") {
        continue;
      }
    }
    const bool path = holder != c.model.assignments.end() && holder->name.find("RANK") == std::string::npos
                      && holder->name.find("MASTER") == std::string::npos && !holder->value.empty()
                      && holder->value.front().text().find('/') != std::string::npos;
    if (path) {
      c.add(Severity::warning, "audit.per_task_variable",
            fmt::format("${} in {}'s path is expanded by the batch shell, once, on the first node: every task gets "
                        "the first node's path{}, not a directory of its own",
                        use.name, holder->name,
                        use.name == "SLURM_PROCID" || use.name == "SLURM_LOCALID" || use.name == "SLURM_NODEID"
                          ? " (with 0 there)"
                          : ""),
            fmt::format("let each task build it: `srun bash -c 'export {}=…_$SLURM_PROCID; exec python …'` (or "
                        "drop the suffix if one shared directory is fine)",
                        holder->name),
            use.offset);
      continue;
    }
    c.add(*severity, "audit.per_task_variable",
          fmt::format("${} is expanded by the batch shell, once, on the first node: every task gets that node's "
                      "value ({} there), not its own",
                      use.name,
                      use.name == "SLURM_PROCID" || use.name == "SLURM_LOCALID" || use.name == "SLURM_NODEID"
                        ? "0"
                        : "one value"),
          fmt::format("escape it (\\${}) inside a single-quoted `bash -c '…'` so each task expands it, or let the "
                      "launcher derive ranks (torchrun --node_rank from the rendezvous)",
                      use.name),
          use.offset);
  }
}

// A word before the launch's program that cannot be read and is no
// option's value (`$EXTRA_ARGS`, not the `$MASTER_ADDR` of
// --main_process_ip), or a program word that cannot be read (`$EXTRA_ARGS
// train.py` reads the expansion as the program): it may hold any option.
bool unread_launcher_words(const FindingContext& c, const Launch& l)
{
  return !l.program || !l.program->known || opaque_launcher_words(c, l);
}

// `srun accelerate launch --num_machines 2 …` with no --machine_rank: every
// node's launcher takes the same machine rank, accelerate's default 0 (or the
// one value of a config file all nodes share), and hands it to torchrun as
// --node_rank under accelerate's default static rendezvous (accelerate docs,
// "multi_node_multi_gpu": machine_rank 0 on the first machine, 1 on the
// second, rdzv_backend static): two nodes claim rank 0 and the job never
// starts. Left alone: a --config_file (it may set the backend), a dynamic
// --rdzv_backend, unknown words before the program, one node.
void accelerate_machine_rank(FindingContext& c)
{
  const Launch* l = c.job.launch;
  const LaunchStage* srun = l != nullptr ? l->stage("srun") : nullptr;
  const LaunchStage* accelerate = l != nullptr ? l->stage("accelerate") : nullptr;
  if (srun == nullptr || accelerate == nullptr || srun->offset > accelerate->offset || runs_in_place(*accelerate)) {
    return;
  }
  const LaunchOption* machines = accelerate->find("num_machines");
  const int count = machines != nullptr && machines->value && machines->value->known ? integer(machines->value->text())
                                                                                     : 0;
  const int nodes = srun_step_nodes(c, srun);
  if (count <= 1 || nodes <= 1 || accelerate->find("machine_rank") != nullptr
      || accelerate->find("config_file") != nullptr || unread_launcher_words(c, *l)) {
    return;
  }
  if (const auto backend = rendezvous_backend(l); backend && *backend != "static") {
    return;
  }
  c.add(Severity::error, "audit.accelerate_machine_rank",
        fmt::format("accelerate launch --num_machines {} runs on each of {} nodes with no --machine_rank: every node "
                    "takes machine rank 0 (accelerate's default) and passes it to torchrun's static rendezvous, so "
                    "the nodes all claim rank 0 and the job never starts",
                    count, nodes),
        "pass --machine_rank \\$SLURM_NODEID inside a single-quoted `bash -c '…'` (each task expands it), or "
        "--rdzv_backend c10d so the rendezvous assigns the ranks",
        accelerate->offset);
}


// The variable of the caller's environment whose default `word`'s value is:
// its first character comes from the default of a `${NAME:-…}` (or
// `${NAME-…}`, `${NAME:=…}`) that the script never assigns NAME before
// `before` (`--nnodes $NUM_NODES` with `NUM_NODES=${NNODES:-1}`: NNODES);
// "" otherwise.
std::string environment_default(const FindingContext& c, const Word& word, int before)
{
  const int at = word.value.first_offset();
  const std::string& t = c.model.text;
  if (at < 2 || at >= static_cast<int>(t.size())) {
    return "";
  }
  const auto open = t.rfind("${", static_cast<std::size_t>(at));
  const auto line_start = t.rfind('\n', static_cast<std::size_t>(at));
  if (open == std::string::npos || (line_start != std::string::npos && open < line_start)) {
    return "";
  }
  std::size_t end = open + 2;
  while (end < t.size() && (std::isalnum(static_cast<unsigned char>(t[end])) != 0 || t[end] == '_')) {
    ++end;
  }
  const std::string name = t.substr(open + 2, end - open - 2);
  if (t.compare(end, 1, ":") == 0) {
    ++end;
  }
  if (name.empty() || name.starts_with("SLURM_") || end >= t.size() || (t[end] != '-' && t[end] != '=')
      || static_cast<int>(end) >= at || t.find('}', end) < static_cast<std::size_t>(at)) {
    return "";
  }
  const bool assigned = std::any_of(c.model.assignments.begin(), c.model.assignments.end(), [&](const Assignment& a) {
    return a.name == name && a.offset < before && a.offset != static_cast<int>(open);
  });
  return assigned ? "" : name;
}

// torchrun --nnodes N with no --node_rank under its default static
// rendezvous: --node_rank defaults to 0 (torch/distributed/run.py, "--node-rank",
// default 0, or the PET_NODE_RANK variable), so every node's torchrun claims
// node 0 and the rendezvous never completes. An error when srun starts it on
// several nodes with N > 1; a warning when N comes from the caller's
// environment (round 19's Muon job: `--nnodes $NUM_NODES`, NUM_NODES=${NNODES:-1},
// NODE_RANK computed and never passed): any run with more than one node
// hangs. Left alone: --standalone, a dynamic --rdzv_backend (ranks come from
// the rendezvous), PET_NODE_RANK set, unknown words before the program.
void torchrun_node_rank(FindingContext& c)
{
  const Launch* l = c.job.launch;
  const LaunchStage* torchrun = l != nullptr ? l->stage("torchrun") : nullptr;
  if (torchrun == nullptr || torchrun->find("node_rank") != nullptr || torchrun->find("standalone") != nullptr
      || unread_launcher_words(c, *l)) {
    return;
  }
  if (const auto backend = rendezvous_backend(l); backend && *backend != "static") {
    return;
  }
  const bool pet = std::any_of(c.model.assignments.begin(), c.model.assignments.end(),
                               [](const Assignment& a) { return a.name == "PET_NODE_RANK"; })
                   || std::any_of(l->env.begin(), l->env.end(),
                                  [](const Assignment& a) { return a.name == "PET_NODE_RANK"; });
  const LaunchOption* nnodes = torchrun->find("nnodes");
  if (pet || nnodes == nullptr || !nnodes->value || !nnodes->value->known) {
    return;
  }
  const int count = integer(nnodes->value->text());
  const LaunchStage* srun = l->stage("srun");
  const int nodes = srun != nullptr && srun->offset < torchrun->offset ? srun_step_nodes(c, srun) : 0;
  if (count > 1 && nodes > 1) {
    c.add(Severity::error, "audit.torchrun_node_rank",
          fmt::format("torchrun --nnodes {} runs on each of {} nodes with no --node_rank: every node takes node "
                      "rank 0 (torchrun's default) in its static rendezvous, so the nodes all claim rank 0 and the "
                      "job never starts",
                      count, nodes),
          "pass --node_rank \\$SLURM_NODEID inside a single-quoted `bash -c '…'` (each task expands it), or "
          "--rdzv_backend c10d --rdzv_endpoint HOST:PORT so the rendezvous assigns the ranks",
          torchrun->offset);
    return;
  }
  const int command_begin = l->command >= 0 ? c.model.commands[static_cast<std::size_t>(l->command)].begin
                                            : torchrun->offset;
  const std::string source = environment_default(c, *nnodes->value, command_begin);
  if (count == 1 && srun == nullptr && !source.empty()) {
    c.add(Severity::warning, "audit.torchrun_node_rank",
          fmt::format("torchrun's --nnodes comes from {} in the caller's environment ({} when unset) and no "
                      "--node_rank is passed: in a run with {} above 1 every node takes node rank 0 (torchrun's "
                      "default) in its static rendezvous, and the job never starts",
                      source, count, source),
          "pass --node_rank with each node's own rank (the variable the script computes for it), or "
          "--rdzv_backend c10d --rdzv_endpoint HOST:PORT so the rendezvous assigns the ranks",
          nnodes->offset);
  }
}

// `srun python pretrain_gpt.py …` with several tasks and nothing that gives
// each task its rank. Megatron reads its rank and world size from the
// environment only: megatron/training/arguments.py (Megatron-LM) and
// megatron/arguments.py (Megatron-DeepSpeed), `args.rank =
// int(os.getenv('RANK', '0'))`, `args.world_size =
// int(os.getenv("WORLD_SIZE", '1'))`; srun sets SLURM_PROCID, not RANK. So
// every task is rank 0: of a world of 1 (each task trains alone, all writing
// one checkpoint directory) or, with WORLD_SIZE exported, of a world whose
// other ranks never join. Megatron-DeepSpeed also picks the GPU as `rank %
// device_count` (initialize.py, _initialize_distributed) before DeepSpeed's
// MPI discovery, so every task takes GPU 0. Left alone: a launcher that
// spawns workers (torchrun, deepspeed), RANK anywhere in the script's text
// (a `bash -c 'RANK=$SLURM_PROCID …'` wrapper), a pyxis container (enroot's
// PyTorch hook sets RANK, LOCAL_RANK and WORLD_SIZE from Slurm's variables in
// NGC images), a sourced file, unread launcher words, one task, and for
// Megatron-DeepSpeed one GPU per task (--gpus-per-task, --gpu-bind).
void srun_without_rank(FindingContext& c)
{
  const Launch* l = c.job.launch;
  const LaunchStage* srun = l != nullptr ? l->stage("srun") : nullptr;
  if (srun == nullptr || !c.job.megatron_program || !l->python || may_spawn(l) || l->has("mpirun")
      || l->sources || !c.job.environment_complete || unread_launcher_words(c, *l)
      || srun->find("container-image") != nullptr || srun->find("container-name") != nullptr
      || c.model.text.find("RANK") != std::string::npos) {
    return;
  }
  const int tasks = c.job.tasks_per_node;
  const int nodes = srun_step_nodes(c, srun);
  if (tasks <= 0 || nodes <= 0 || tasks * nodes <= 1) {
    return;
  }
  const bool one_gpu_each = c.model.directive("gpus-per-task") != nullptr || srun->find("gpus-per-task") != nullptr
                            || srun->find("gpu-bind") != nullptr || c.model.directive("gpu-bind") != nullptr;
  if (megatron_deepspeed(c.job) && one_gpu_each) {
    return;  // each task sees its own GPU as device 0, and DeepSpeed may find the ranks through MPI
  }
  const bool world = c.model.text.find("WORLD_SIZE") != std::string::npos;
  const std::string tail =
    megatron_deepspeed(c.job)
      ? std::string(" when Megatron-DeepSpeed picks its GPU (rank % device count, before DeepSpeed's MPI discovery): "
                    "every task takes GPU 0 (NCCL/RCCL stops at a duplicate GPU, or the GPU runs out of memory)")
    : world ? std::string(" of the world WORLD_SIZE names, whose other ranks never join: the job hangs at "
                          "initialisation")
            : std::string(" of a world of 1 (WORLD_SIZE defaults to 1): each trains alone on a copy of the data and "
                          "all write one checkpoint directory");
  c.add(Severity::error, "audit.srun_without_rank",
        fmt::format("srun starts {} tasks of {} itself, and nothing sets RANK: Megatron takes its rank from RANK "
                    "(os.getenv('RANK', '0')), not from Slurm's SLURM_PROCID, so every task is rank 0{}",
                    tasks * nodes, l->program->text(), tail),
        "start one torchrun per node (`srun --ntasks-per-node=1 torchrun --nproc-per-node=8 …`), or give each task "
        "its ranks: `srun bash -c 'RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID WORLD_SIZE=$SLURM_NTASKS python …'`",
        srun->offset);
}
}  // namespace

void rank_findings(FindingContext& c)
{
  per_task_variables(c);
  accelerate_machine_rank(c);
  torchrun_node_rank(c);
  srun_without_rank(c);
}

}  // namespace lg::audit::detail
