// A GPU training launch in a job that asks Slurm for no GPU. Where GPUs are
// generic resources (GresTypes=gpu, as on most clusters), a job gets the
// GRES it requests and no others: on the local Slurm 22.05 `sbatch -N1`
// allocates `billing=1,cpu=1,mem=1G,node=1` and SLURM_GPUS_ON_NODE is unset,
// while `sbatch -N1 --exclusive` allocates the node's `gres/gpu=8` (the whole
// node, its GRES included), so --exclusive counts as a request. Seen twice in
// held-out round 26 (MegaMolBART's and Paella's multi-node jobs: 8 tasks per
// node, trainer.gpus / torchrun, no --gres or --gpus*).
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>

namespace lg::audit::detail {

namespace {

bool mentions_gpu(const std::string& value)
{
  std::string lower = value;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return lower.find("gpu") != std::string::npos;
}

bool srun_requests_gpus(const Launch& l)
{
  const LaunchStage* srun = l.stage("srun");
  if (srun == nullptr) {
    return false;
  }
  for (const char* name : {"gres", "gpus", "G", "gpus-per-node", "gpus-per-task", "gpus-per-socket", "tres-per-task"}) {
    if (srun->find(name) != nullptr) {
      return true;
    }
  }
  return false;
}

// What in the launch says it runs on GPUs: a distributed GPU launcher, a
// Megatron program, a container started with GPUs, or Lightning's device
// counts among its arguments.
bool expects_gpus(const FindingContext& c, const Launch& l)
{
  if (c.job.megatron || c.job.megatron_program) {
    return true;
  }
  for (const char* tool : {"torchrun", "deepspeed", "accelerate"}) {
    if (l.has(tool)) {
      return true;
    }
  }
  for (const auto& stage : l.stages) {
    if ((stage.tool == "apptainer" || stage.tool == "singularity") && stage.find("nv") != nullptr) {
      return true;
    }
  }
  return std::any_of(l.args.begin(), l.args.end(), [](const Word& w) {
    return w.known && (w.text().starts_with("trainer.gpus=") || w.text().starts_with("trainer.devices="));
  });
}

} // namespace

bool resources_in_script(const ScriptModel& model, int component)
{
  for (const char* name : {"nodes", "ntasks", "ntasks-per-node", "cpus-per-task", "mem", "gres", "gpus-per-node"}) {
    if (model.directive(name, component) != nullptr) {
      return true;
    }
  }
  return false;
}

bool requests_gpus(const ScriptModel& model, int component)
{
  const Directive* gres = model.directive("gres", component);
  if (gres != nullptr && (mentions_gpu(gres->value) || !gres->has_value)) {
    return true;
  }
  for (const char* name : {"gpus", "gpus-per-node", "gpus-per-task", "gpus-per-socket"}) {
    if (model.directive(name, component) != nullptr) {
      return true;
    }
  }
  const Directive* tres = model.directive("tres-per-task", component);
  return tres != nullptr && mentions_gpu(tres->value);
}

void gpu_request_findings(FindingContext& c)
{
  const Launch* l = c.job.launch;
  const int k = c.job.component;
  if (l == nullptr || k < 0 || c.model.directives.empty() || !resources_in_script(c.model, k)
      || requests_gpus(c.model, k) || c.model.directive("exclusive", k) != nullptr || srun_requests_gpus(*l)
      || !expects_gpus(c, *l)) {
    return;
  }
  // A partition named for CPUs is a preparation step, judged elsewhere; a
  // launch that names its devices itself (CUDA_VISIBLE_DEVICES) is left alone.
  if (const Directive* p = c.model.directive("partition", k); p != nullptr && p->value.find("cpu") != std::string::npos) {
    return;
  }
  if (c.job.env("CUDA_VISIBLE_DEVICES") != nullptr) {
    return;
  }
  const int per_node = c.job.world > 0 && c.job.world_nodes > 0 ? c.job.world / c.job.world_nodes : 0;
  const std::string count = per_node > 0 ? std::to_string(per_node) : "N";
  const Directive* anchor = c.model.directive("nodes", k);
  if (anchor == nullptr) {
    anchor = c.model.directive("ntasks-per-node", k);
  }
  c.add(Severity::warning, "audit.no_gpu_request",
        "the job asks Slurm for no GPU (no #SBATCH --gres=gpu:N, --gpus-per-node, --gpus or --gpus-per-task, and "
        "no --exclusive): where GPUs are generic resources (GRES), as on most clusters, Slurm gives its tasks none "
        "and the launch finds no CUDA device; only a partition that allocates whole nodes (OverSubscribe=EXCLUSIVE) "
        "includes them",
        fmt::format("add `#SBATCH --gpus-per-node={}` (or `--gres=gpu:{}`)", count, count),
        anchor != nullptr ? anchor->offset : c.model.commands[static_cast<std::size_t>(l->command)].begin);
}

} // namespace lg::audit::detail
