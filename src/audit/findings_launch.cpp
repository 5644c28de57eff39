// Launch hygiene: torchrun with several tasks per node, a per-host launcher
// without srun on several nodes, node and GPU counts repeated in or missing
// from the launcher (ranks: findings_ranks.cpp; pyxis options:
// findings_container.cpp; --signal: findings_signal.cpp).
#include "audit/findings.hpp"
#include "audit/launch_tools.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>

namespace lg::audit::detail {

int integer(const std::string& text)
{
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && end == text.data() + text.size() ? v : 0;
}

// The launcher stage of `l` that starts its own workers on its node, one per
// GPU: torchrun (and python -m torch.distributed.run, ft_launcher),
// deepspeed, and accelerate launch with more than one process per machine
// (--multi_gpu, or --num_processes over --num_machines above 1: with one it
// runs the script in place, accelerate/commands/launch.py simple_launcher).
// Under srun such a launcher wants one task per node. nullptr: none.
const LaunchStage* spawning_launcher(const Launch& l)
{
  for (const auto& stage : l.stages) {
    if (stage.tool == "torchrun" || stage.tool == "deepspeed") {
      return &stage;
    }
    if (stage.tool == "accelerate") {
      const LaunchOption* processes = stage.find("num_processes");
      const LaunchOption* machines = stage.find("num_machines");
      const int p =
        processes != nullptr && processes->value && processes->value->known ? integer(processes->value->text()) : 0;
      const int m = machines != nullptr && machines->value && machines->value->known ? integer(machines->value->text())
                    : machines == nullptr                                            ? 1
                                                                                     : 0;
      if (stage.find("multi_gpu") != nullptr || (p > 0 && m > 0 && p > m)) {
        return &stage;
      }
    }
  }
  return nullptr;
}

namespace {

std::string launcher_name(const LaunchStage& stage)
{
  return stage.tool == "accelerate" ? "accelerate launch" : stage.tool;
}

void torchrun_tasks(FindingContext& c)
{
  const Launch* l = c.job.launch;
  const LaunchStage* launcher = l == nullptr ? nullptr : spawning_launcher(*l);
  if (launcher == nullptr || !l->has("srun") || c.job.tasks_per_node <= 1) {
    return;
  }
  const LaunchOption* option = l->stage("srun")->find("ntasks-per-node");
  const Directive* d = c.model.directive("ntasks-per-node", c.job.component);
  const int at = option != nullptr ? option->offset : d != nullptr ? d->offset : l->stages.front().offset;
  const std::string name = launcher_name(*launcher);
  c.add(Severity::error, "audit.torchrun_tasks_per_node",
        fmt::format("{} tasks per node each start {}: {} launchers per node fight over the rendezvous port "
                    "(EADDRINUSE) and spawn {}x the processes",
                    c.job.tasks_per_node, name, c.job.tasks_per_node, c.job.tasks_per_node),
        fmt::format("use --ntasks-per-node=1 with {} (it starts one worker per GPU itself), or drop it and let "
                    "srun start one task per GPU",
                    name),
        at);
}

// torchrun (python -m torch.distributed.run, ft_launcher) and accelerate
// launch start workers on their own host only (torch/distributed/run.py:
// "launch on each node"); a batch script runs on the first node of the
// allocation. Without srun/mpirun (or ssh/pdsh) in front, a multi-node job's
// other nodes never start: they idle, and a rendezvous waiting for --nnodes
// N never completes (torchrun fails when its rendezvous times out). Only
// top-level launches are judged: one inside a loop or function may be sent
// to each node by what surrounds it.
void single_host_launch(FindingContext& c)
{
  const Launch* l = c.job.launch;
  if (l == nullptr || l->stages.empty() || c.job.nodes <= 1) {
    return;
  }
  // The per-host launcher, and nothing before it that reaches other nodes.
  const LaunchStage* launcher = nullptr;
  for (const auto& stage : l->stages) {
    if (stage.tool == "srun" || stage.tool == "mpirun") {
      return;
    }
    if (stage.tool == "torchrun" || stage.tool == "accelerate") {
      launcher = &stage;
      break;
    }
  }
  if (launcher == nullptr) {
    return;
  }
  const std::string& outer = launcher->tool;
  const Command& command = c.model.commands[static_cast<std::size_t>(l->command)];
  if (command.depth > 0) {
    return;
  }
  // Words before the launcher that may send it to every node (or that are
  // unknown and might): not judged.
  for (const auto& w : command.words) {
    const std::string& t = w.text();
    if (t == outer || t.ends_with("/" + outer) || t.starts_with("python")) {
      break;
    }
    if (t == "ssh" || t == "pdsh" || t == "clush" || t == "mpirun" || t == "srun" || !w.known) {
      return;
    }
  }
  // torchrun's --nnodes (MIN:MAX for elastic jobs): 1 means the job runs on one node, the rest idle.
  const LaunchOption* nnodes = launcher->find("nnodes");
  if (nnodes == nullptr) {
    nnodes = launcher->find("num_machines");  // accelerate launch
  }
  std::optional<long long> minimum;
  if (nnodes != nullptr && nnodes->value && nnodes->value->known) {
    const std::string& v = nnodes->value->text();
    const int n = integer(v.substr(0, v.find(':')));
    if (n > 0) {
      minimum = n;
    }
  } else if (nnodes == nullptr && launcher->find("config_file") == nullptr && !opaque_launcher_words(c, *l)
             && std::none_of(c.model.assignments.begin(), c.model.assignments.end(),
                             [](const Assignment& a) { return a.name == "PET_NNODES"; })) {
    // Not given: torchrun's default is --nnodes=1:1 (torch/distributed/run.py),
    // accelerate's --num_machines 1: a one-node job, the others idle.
    minimum = 1;
  }
  const bool one = minimum == 1;
  c.add(one ? Severity::warning : Severity::error, "audit.single_host_launch",
        fmt::format("{}{} but {} runs without srun: the batch script runs on the first node only, so "
                    "{}",
                    c.job.flux_nodes ? "#FLUX: -N " : "#SBATCH --nodes=", c.job.nodes,
                    outer == "torchrun" ? "torchrun" : "accelerate launch",
                    one ? (c.job.nodes == 2 ? std::string("the other node stays idle")
                                            : fmt::format("the other {} nodes stay idle", c.job.nodes - 1))
                        : fmt::format("{} and the rendezvous waiting for {} nodes never completes (the job hangs "
                                      "until it times out)",
                                      c.job.nodes == 2 ? std::string("the other node never starts")
                                                       : fmt::format("the other {} nodes never start", c.job.nodes - 1),
                                      minimum ? std::to_string(*minimum) : std::string("--nnodes"))),
        "start it once per node: srun --ntasks-per-node=1 torchrun … (node rank from a c10d rendezvous, or "
        "$SLURM_NODEID expanded inside each task)",
        launcher->offset);
}

void duplicated_counts(FindingContext& c)
{
  const Launch* l = c.job.launch;
  // The launch's own component of a heterogeneous job (none known: nullptr).
  const Directive* nodes = c.model.directive("nodes", c.job.component);
  int allocated = nodes == nullptr ? 0 : integer(nodes->value);
  // Without --nodes, -w/--nodelist sets the count: the listed hosts (sbatch(1)).
  const bool from_list = nodes == nullptr && c.model.directive("nodelist", c.job.component) != nullptr;
  if (from_list) {
    nodes = c.model.directive("nodelist", c.job.component);
    allocated = hostlist_count(nodes->value);
  }
  if (l == nullptr || nodes == nullptr || allocated <= 0) {
    return;
  }
  const int directive_line = c.model.line_of(nodes->offset);
  for (const auto& stage : l->stages) {
    const LaunchOption* o = stage.tool == "torchrun" ? stage.find("nnodes")
                            : stage.tool == "deepspeed" ? stage.find("num-nodes")
                                                        : nullptr;
    if (o == nullptr || !o->value || !o->value->known) {
      continue;
    }
    bool from_directive = false;
    for (int off : o->value->value.offsets) {
      from_directive = from_directive || (off >= 0 && c.model.line_of(off) == directive_line);
    }
    const int count = integer(o->value->text());
    if (from_directive || count <= 0) {
      continue;
    }
    const bool differs = count != allocated;
    if (!differs && (from_list || stage.find("standalone") != nullptr)) {
      // A host list and a count are not the same number written twice; under
      // --standalone (torch/distributed/run.py: a single-node rendezvous) one
      // node is the design, not a copy of the allocation.
      continue;
    }
    c.add(differs ? Severity::error : Severity::advice, "audit.nodes_duplicated",
          differs && count > allocated
            ? fmt::format("{} is told {} nodes but the allocation has {} (#SBATCH {} line {}): the "
                          "rendezvous waits for nodes that never come",
                          stage.tool, count, allocated, nodes->spelled, directive_line)
          : differs
            ? fmt::format("{} is told {} node{} but the allocation has {} (#SBATCH {} line {}): the other nodes' "
                          "launchers do not fit in the rendezvous, and the job does not run on all of them",
                          stage.tool, count, count == 1 ? "" : "s", allocated, nodes->spelled, directive_line)
                  : fmt::format("the node count {} is written twice (#SBATCH line {} and {}): they drift apart "
                                "when one is edited",
                                count, directive_line, stage.tool),
          "pass \"$SLURM_JOB_NUM_NODES\" to the launcher", o->value->offset);
  }
}

// The GPUs per node a launch's srun step gets: its own --gres=gpu:N or
// --gpus-per-node=N (srun man page: both are per node, and a step sees the
// GPUs it requests, not the whole allocation's), else the job's #SBATCH count.
// With both, --gres decides (the local Slurm 22.05 allocates the gres count).
// 0: the step names a count that cannot be read. `spelled` says which.
int step_gpus_per_node(const FindingContext& c, const Launch& l, std::string& spelled)
{
  if (const LaunchStage* srun = l.stage("srun")) {
    for (const char* name : {"gres", "gpus-per-node"}) {
      const LaunchOption* o = srun->find(name);
      if (o == nullptr) {
        continue;
      }
      const int n = o->value && o->value->known ? gpu_count(o->value->text()) : 0;
      if (n > 0 || !o->value || !o->value->known) {
        spelled = fmt::format("srun --{}{}", name, o->value ? "=" + o->value->text() : "");
        return n;
      }
    }
  }
  return c.job.gpus_per_node;
}

void gpus_mismatch(FindingContext& c)
{
  const Launch* l = c.job.launch;
  std::string step;
  const int gpus = l == nullptr ? 0 : step_gpus_per_node(c, *l, step);
  if (l == nullptr || gpus <= 0) {
    return;
  }
  int per_node = 0;
  int at = -1;
  if (const LaunchStage* t = l->stage("torchrun")) {
    const LaunchOption* o = t->find("nproc-per-node");
    if (o != nullptr && o->value && o->value->known) {
      per_node = integer(o->value->text());
      at = o->value->offset;
    }
  } else if (const LaunchStage* d = l->stage("deepspeed")) {
    // deepspeed --num_gpus is per node (deepspeed/launcher/runner.py); srun's
    // tasks are the runners, not the workers.
    const LaunchOption* o = d->find("num_gpus");
    if (o != nullptr && o->value && o->value->known) {
      per_node = integer(o->value->text());
      at = o->value->offset;
    }
  } else if (const LaunchStage* a = l->stage("accelerate")) {
    // accelerate launch --num_processes is the total over --num_machines
    // (accelerate/commands/launch.py): the per-node count is the quotient.
    const LaunchOption* o = a->find("num_processes");
    const LaunchOption* m = a->find("num_machines");
    const int machines = m == nullptr ? 1 : m->value && m->value->known ? integer(m->value->text()) : 0;
    if (o != nullptr && o->value && o->value->known && machines > 0 && integer(o->value->text()) % machines == 0) {
      per_node = integer(o->value->text()) / machines;
      at = o->value->offset;
    }
  } else if (l->has("srun") && l->python && c.job.megatron && c.job.cluster_known && c.job.tasks_per_node > 0) {
    per_node = c.job.tasks_per_node;
    at = l->stage("srun")->offset;
  } else if (l->has("srun") && l->python && c.job.tasks_per_node > 1 && gpus % c.job.tasks_per_node != 0) {
    // Any program of several tasks per node on a GPU count they cannot share
    // evenly (held-out round 30's Delta job: 2 tasks, --gpus-per-node=3): one
    // GPU idles or two tasks share one. A program may drive several GPUs from
    // one process, so only the uneven split is judged.
    const int tasks = c.job.tasks_per_node;
    c.add(Severity::warning, "audit.gpus_mismatch",
          fmt::format("{} tasks per node on {} GPUs per node{}: they cannot split the GPUs evenly, so a GPU idles or "
                      "two tasks share one",
                      tasks, gpus, step.empty() ? "" : fmt::format(" (the step's own {})", step)),
          fmt::format("request a multiple of {} GPUs per node, or start one task per GPU", tasks),
          l->stage("srun")->offset);
    return;
  }
  if (per_node <= 0 || per_node == gpus) {
    return;
  }
  const bool over = per_node > gpus;
  c.add(over ? Severity::error : Severity::warning, "audit.gpus_mismatch",
        fmt::format("{} processes per node on {} GPU{} per node{}: {}", per_node, gpus, gpus == 1 ? "" : "s",
                    step.empty() ? "" : fmt::format(" (the step's own {})", step),
                    over ? "ranks share GPUs and run out of memory or fail to initialise NCCL"
                         : "some GPUs stay idle for the whole job"),
        fmt::format("start {} processes per node (or request {} GPUs per node)", gpus, per_node), at);
}

}  // namespace

// `srun torchrun --nproc_per_node 4 train.py` on several nodes with no
// --nnodes: torchrun's default is --nnodes=1:1 (torch/distributed/run.py),
// so each node's torchrun is a one-node job of its own, all on the same
// master address and port; they never form one job of N nodes.
// The nodes an srun step runs on: its own -N/--nodes (a plain count; "2-4"
// is a range) decides, #SBATCH --nodes only when srun names none; 0 when
// not known or narrowed (-w host, -n 1, --relative).
int srun_step_nodes(const FindingContext& c, const LaunchStage* srun)
{
  const LaunchOption* step_nodes = srun->find("nodes");
  if (step_nodes == nullptr) {
    step_nodes = srun->find("N");
  }
  int nodes = c.job.nodes;
  if (step_nodes != nullptr) {
    nodes = step_nodes->value && step_nodes->value->known ? integer(step_nodes->value->text()) : 0;
    // -n below -N: srun lowers the node count to the task count.
    if (const LaunchOption* tasks = srun->find("ntasks") != nullptr ? srun->find("ntasks") : srun->find("n")) {
      const int n = tasks->value && tasks->value->known ? integer(tasks->value->text()) : 0;
      nodes = n > 0 ? std::min(nodes, n) : 0;
    }
    if (srun->find("relative") != nullptr || srun->find("r") != nullptr) {
      nodes = 0;
    }
  } else {
    // srun narrowed to fewer nodes (-w host, -n 1) is not judged.
    for (const char* narrowing : {"nodelist", "w", "ntasks", "n", "relative", "r"}) {
      if (srun->find(narrowing) != nullptr) {
        return 0;
      }
    }
  }
  return nodes;
}

// A word before the program that cannot be read ($DISTRIBUTED_ARGS): it may
// hold the options a rule looks for.
bool opaque_launcher_words(const FindingContext& c, const Launch& l, int except_offset)
{
  // The values of options the launch reader placed (`--master_addr=$HEAD`,
  // `--nnodes $N`): one option's value, not words that may hold any option.
  std::set<int> values;
  for (const auto& stage : l.stages) {
    for (const auto& o : stage.options) {
      if (o.value && o.name != "?") {  // "?": a word the launch reader could not place
        values.insert(o.value->offset);
      }
    }
  }
  // Words before the program by position: a word from a variable's value
  // carries the offset of that value, which may come before the program's.
  const Command& command = c.model.commands[static_cast<std::size_t>(l.command)];
  const auto program = l.program ? std::find_if(command.words.begin(), command.words.end(), [&](const Word& w) {
    return w.offset == l.program->offset && w.text() == l.program->text();
  })
                                 : command.words.end();
  return std::any_of(command.words.begin(), program, [&](const Word& w) {
    return w.offset >= 0 && !w.known && w.offset != except_offset && values.count(w.offset) == 0;
  });
}

namespace {

// The training launch's `tool` stage when srun starts it, with the step's
// node count (0: not known), or nullptr.
const LaunchStage* under_srun(const FindingContext& c, const char* tool, int& nodes)
{
  const Launch* l = c.job.launch;
  const LaunchStage* srun = l == nullptr ? nullptr : l->stage("srun");
  const LaunchStage* stage = l == nullptr ? nullptr : l->stage(tool);
  if (srun == nullptr || stage == nullptr || srun->offset > stage->offset) {
    return nullptr;
  }
  nodes = srun_step_nodes(c, srun);
  return stage;
}

void torchrun_default_nnodes(FindingContext& c)
{
  int nodes = 0;
  const LaunchStage* torchrun = under_srun(c, "torchrun", nodes);
  const Launch* l = c.job.launch;
  if (torchrun == nullptr || nodes <= 1) {
    return;  // one node, or a count not known
  }
  if (torchrun->find("nnodes") != nullptr || torchrun->find("standalone") != nullptr) {
    return;
  }
  // torchrun reads each option's default from PET_<OPTION> too
  // (torch/distributed/argparse_util.py, env): PET_NNODES set anywhere.
  if (std::any_of(c.model.assignments.begin(), c.model.assignments.end(),
                  [](const Assignment& a) { return a.name == "PET_NNODES"; })) {
    return;
  }
  if (opaque_launcher_words(c, *l)) {
    return;  // a word that may hold --nnodes ($DISTRIBUTED_ARGS)
  }
  c.add(Severity::error, "audit.torchrun_default_nnodes",
        fmt::format("srun starts torchrun on each of the {} nodes without --nnodes: torchrun's default is "
                    "--nnodes=1:1, so every node runs a one-node job of its own on the same rendezvous address "
                    "instead of one job across the nodes",
                    nodes),
        "pass --nnodes \"$SLURM_JOB_NUM_NODES\" with a c10d rendezvous (--rdzv-backend c10d --rdzv-endpoint "
        "HEAD:PORT), or --node-rank from each task",
        torchrun->offset);
}

// `srun torchrun --nnodes 2 …` with no rendezvous address: --rdzv-endpoint
// defaults to empty, and get_rdzv_endpoint (torch/distributed/run.py) then
// takes --master-addr:--master-port, whose defaults are 127.0.0.1:29500 (the
// default static rendezvous); the c10d backend reads an empty endpoint as
// localhost:29400 (torch/distributed/elastic/rendezvous/utils.py,
// parse_rendezvous_endpoint). So each node's torchrun rendezvouses with
// itself: the job waits for nodes that never join, or the nodes run apart.
// Left alone: an address given in any form torchrun reads (the options, or
// PET_RDZV_ENDPOINT / PET_MASTER_ADDR, which its env action reads),
// --standalone, and unknown words before the program. An exported MASTER_ADDR
// is not one: torchrun's --master-addr defaults to 127.0.0.1 and reads only
// PET_MASTER_ADDR (torch/distributed/run.py, `--master-addr` with action=env;
// get_rdzv_endpoint), and it sets MASTER_ADDR for its workers itself (held-out
// round 28: torchtune's 2-node job exported MASTER_ADDR from scontrol and
// passed torchrun neither option). Error when the node count is certainly
// above 1, else a warning.
void torchrun_local_rendezvous(FindingContext& c)
{
  int nodes = 0;
  const LaunchStage* torchrun = under_srun(c, "torchrun", nodes);
  const LaunchOption* nnodes = torchrun == nullptr ? nullptr : torchrun->find("nnodes");
  if (nnodes == nullptr || !nnodes->value || torchrun->find("standalone") != nullptr) {
    return;
  }
  // An unknown word before the program other than the count may hold the address.
  if (opaque_launcher_words(c, *c.job.launch, nnodes->value->offset)) {
    return;
  }
  // A dynamic backend (c10d, etcd) reads --rdzv-endpoint only:
  // get_rdzv_endpoint takes --master-addr:--master-port for the static
  // backend alone (round 26's ASU job passed --master_addr with c10d).
  const LaunchOption* backend = torchrun->find("rdzv_backend");
  const bool dynamic = backend != nullptr && backend->value && backend->value->known
                       && backend->value->text() != "static";
  for (const char* given : {"rdzv_endpoint", "master_addr"}) {
    if (torchrun->find(given) != nullptr && (!dynamic || std::string_view(given) == "rdzv_endpoint")) {
      return;
    }
  }
  if (std::any_of(c.model.assignments.begin(), c.model.assignments.end(), [dynamic](const Assignment& a) {
        return a.name == "PET_RDZV_ENDPOINT" || (!dynamic && a.name == "PET_MASTER_ADDR");
      })) {
    return;
  }
  const Word& count = *nnodes->value;
  int minimum = 0;
  if (count.known) {
    minimum = integer(count.text().substr(0, count.text().find(':')));
    if (minimum <= 1) {
      return;  // one node (or elastic from one): nothing to meet
    }
  } else if (std::none_of(count.expanded.begin(), count.expanded.end(), [](const std::string& v) {
               return v.find("NNODES") != std::string::npos || v.find("NUM_NODES") != std::string::npos;
             })) {
    return;  // a count the script does not say is the node count
  }
  const bool certain = minimum > 1 && nodes > 1;
  const bool master_addr = std::any_of(c.model.assignments.begin(), c.model.assignments.end(),
                                       [](const Assignment& a) { return a.name == "MASTER_ADDR"; });
  c.add(certain ? Severity::error : Severity::warning, "audit.torchrun_local_rendezvous",
        fmt::format("torchrun --nnodes {} with no --rdzv-endpoint{}: the rendezvous address defaults "
                    "to this node (127.0.0.1:29500, or localhost with --rdzv-backend c10d), so each node's torchrun "
                    "waits for the others on itself{}{}",
                    count.text(),
                    dynamic ? fmt::format(" (--rdzv-backend {} reads no --master-addr)", backend->value->text())
                            : " or --master-addr",
                    certain ? "" : " (when the job runs on more than one node)",
                    master_addr ? "; the MASTER_ADDR the script sets is not read by torchrun (only its options and "
                                  "PET_MASTER_ADDR are), and torchrun sets MASTER_ADDR for its workers itself"
                                : ""),
        "pass --rdzv-backend c10d --rdzv-endpoint \"$HEAD:29500\" with HEAD the first node "
        "($(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1))",
        torchrun->offset);
}

// `srun deepspeed train.py` on several nodes with no hostfile: each task's
// DeepSpeed runner finds none (neither --hostfile nor /job/hostfile) and
// logs "Unable to find hostfile, will proceed with training with local
// resources only" (deepspeedai/DeepSpeed deepspeed/launcher/runner.py,
// fetch_hostfile), so every node trains a job of its own. --no_ssh with
// --node_rank (one runner per node, by design), --launcher and the
// include/exclude lists are left alone.
void deepspeed_without_hostfile(FindingContext& c)
{
  int nodes = 0;
  const LaunchStage* deepspeed = under_srun(c, "deepspeed", nodes);
  if (deepspeed == nullptr || nodes <= 1 || opaque_launcher_words(c, *c.job.launch)
      || c.model.text.find("/job/hostfile") != std::string::npos) {
    return;
  }
  for (const char* own : {"hostfile", "H", "include", "i", "exclude", "e", "no_ssh", "node_rank", "launcher"}) {
    if (deepspeed->find(own) != nullptr) {
      return;
    }
  }
  c.add(Severity::error, "audit.deepspeed_without_hostfile",
        fmt::format("srun starts the deepspeed launcher on each of the {} nodes with no hostfile: each one logs "
                    "\"Unable to find hostfile, will proceed with training with local resources only\", so every "
                    "node trains a one-node job of its own instead of one job across the nodes",
                    nodes),
        "run deepspeed once (no srun) with --hostfile listing the nodes, or start the workers with srun and torchrun "
        "--nnodes \"$SLURM_JOB_NUM_NODES\"",
        deepspeed->offset);
}

// The checks on a launcher's own words, which hold for every `srun … torchrun`
// line, not only the training launch.
void launcher_checks(FindingContext& c)
{
  torchrun_tasks(c);
  gpus_mismatch(c);
  torchrun_default_nnodes(c);
  torchrun_local_rendezvous(c);
}

// The other `srun … torchrun` lines (a first run before the real one, one per
// branch): their own launcher checks, each with its own srun's node and task
// counts.
void other_torchrun_lines(FindingContext& c)
{
  for (const auto& l : c.model.launches) {
    const LaunchStage* srun = l.stage("srun");
    const LaunchStage* torchrun = l.stage("torchrun");
    if (&l == c.job.launch || srun == nullptr || torchrun == nullptr || srun->offset > torchrun->offset) {
      continue;
    }
    ScriptJob other;
    other.launch = &l;
    other.spec.cluster.gpu_info = c.job.spec.cluster.gpu_info;
    read_cluster(c.model, other);
    FindingContext line{c.model, other, c.options, c.path, c.out};
    launcher_checks(line);
  }
}

}  // namespace

void signal_findings(FindingContext& c);  // findings_secrets.cpp
void rank_findings(FindingContext& c);    // findings_ranks.cpp
void container_findings(FindingContext& c);  // findings_container.cpp
void program_findings(FindingContext& c); // findings_program.cpp
void hostfile_findings(FindingContext& c);  // findings_hostfile.cpp
void exit_duration_findings(FindingContext& c);  // findings_exit_duration.cpp
void save_without_load(FindingContext& c);       // findings_exit_duration.cpp
void trainer_nodes_findings(FindingContext& c);  // findings_trainer_nodes.cpp

void launch_findings(FindingContext& c)
{
  launcher_checks(c);
  other_torchrun_lines(c);
  single_host_launch(c);
  rank_findings(c);
  container_findings(c);
  duplicated_counts(c);
  deepspeed_without_hostfile(c);
  hostfile_findings(c);
  program_findings(c);
  signal_findings(c);
  exit_duration_findings(c);
  save_without_load(c);
  trainer_nodes_findings(c);
}

} // namespace lg::audit::detail
