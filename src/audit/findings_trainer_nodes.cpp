// A Lightning trainer (NeMo 1, NeMo-Aligner, any program taking Hydra
// `trainer.num_nodes=N trainer.devices=D` overrides) told another shape than
// the srun step that starts it: under Slurm, Lightning's SLURMEnvironment
// compares both with the step's SLURM_NNODES and SLURM_NTASKS_PER_NODE and
// raises ("You set `num_nodes=2` in Lightning, but the number of nodes
// configured in SLURM `--nodes=16` does not match"; lightning
// src/lightning/fabric/plugins/environments/slurm.py, validate_settings), so
// the step stops at startup. Round 19's NeMo-Aligner RLOO job: het group 0
// (-N 16) runs the critic with trainer.num_nodes=2, group 1 (-N 2) the actor
// with trainer.num_nodes=8. The step's nodes and tasks per node are its srun
// options over its component's #SBATCH lines; not judged when either side is
// not known, nor when a launcher that starts the workers sits between srun
// and the program (`srun torchrun --nproc_per_node=8 … trainer.devices=8`):
// Lightning takes the Slurm environment only when SLURM_NTASKS equals
// devices × num_nodes (accelerator_connector.py, _is_slurm_managing_tasks),
// and otherwise torchrun's (TorchElasticEnvironment), which compares nothing
// with Slurm (held-out round 30's Pawsey AlphaFold3 job, a wrong error).
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <string>

namespace lg::audit::detail {

namespace {

// The integer value of Hydra override `key` (`key=N`, `+key=N`, `++key=N`,
// `--key=N`) in `args`, the last one given, and its word; 0 when absent.
std::pair<int, const Word*> override_value(const std::vector<Word>& args, const std::string& key)
{
  std::pair<int, const Word*> found{0, nullptr};
  for (const Word& w : args) {
    if (!w.known) {
      continue;
    }
    std::string t = w.text();
    const auto start = t.find_first_not_of("+-");
    if (start == std::string::npos || t.compare(start, key.size() + 1, key + "=") != 0) {
      continue;
    }
    found = {integer(t.substr(start + key.size() + 1)), &w};
  }
  return found;
}

// A count of the step: its srun option (-N 2, --ntasks-per-node=8) over its
// component's #SBATCH line; 0 when not known.
int step_count(const FindingContext& c, const LaunchStage& srun, int component,
               std::initializer_list<const char*> srun_names, const char* directive)
{
  for (const char* name : srun_names) {
    if (const LaunchOption* o = srun.find(name)) {
      return o->value && o->value->known ? integer(o->value->text()) : 0;
    }
  }
  const Directive* d = c.model.directive(directive, component);
  return d != nullptr && d->has_value ? integer(d->value) : 0;
}

std::string component_name(const ScriptModel& model, int component)
{
  return model.components > 1 ? fmt::format("het group {}: ", component) : "";
}

}  // namespace

void trainer_nodes_findings(FindingContext& c)
{
  for (const Launch& l : c.model.launches) {
    const LaunchStage* srun = l.stage("srun");
    const auto [num_nodes, nodes_word] = override_value(l.args, "trainer.num_nodes");
    const auto [devices, devices_word] = override_value(l.args, "trainer.devices");
    const int component = step_component(l, c.model);
    if (srun == nullptr || component < 0 || (nodes_word == nullptr && devices_word == nullptr)
        || spawning_launcher(l) != nullptr) {
      continue;
    }
    const int step_nodes = step_count(c, *srun, component, {"nodes", "N"}, "nodes");
    const int step_tasks = step_count(c, *srun, component, {"ntasks-per-node"}, "ntasks-per-node");
    const bool nodes_differ = nodes_word != nullptr && num_nodes > 0 && step_nodes > 0 && num_nodes != step_nodes;
    const bool devices_differ = devices_word != nullptr && devices > 0 && step_tasks > 0 && devices != step_tasks;
    if (!nodes_differ && !devices_differ) {
      continue;
    }
    const std::string what = nodes_differ ? fmt::format("trainer.num_nodes={}", num_nodes)
                                          : fmt::format("trainer.devices={}", devices);
    const std::string step = nodes_differ ? fmt::format("{} nodes", step_nodes)
                                          : fmt::format("{} tasks per node", step_tasks);
    c.add(Severity::error, "audit.trainer_nodes",
          fmt::format("the program is given {} but its srun step ({}line {}) runs on {}: Lightning's "
                      "SLURMEnvironment checks the trainer's num_nodes and devices against the step's SLURM_NNODES "
                      "and SLURM_NTASKS_PER_NODE and stops at startup when they differ",
                      what, component_name(c.model, component), c.model.line_of(srun->offset), step),
          nodes_differ ? fmt::format("make trainer.num_nodes the step's node count ({}), or give this step the "
                                     "nodes the trainer expects",
                                     step_nodes)
                       : fmt::format("make trainer.devices the step's tasks per node ({})", step_tasks),
          (nodes_differ ? nodes_word : devices_word)->offset);
  }
}

}  // namespace lg::audit::detail
