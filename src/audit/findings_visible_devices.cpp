// `export CUDA_VISIBLE_DEVICES=0,1` in a job that asks Slurm for GPUs. Slurm
// sets CUDA_VISIBLE_DEVICES to the GPUs it allocated on the node (Slurm
// gres.html, "GPU Management": "Slurm will set CUDA_VISIBLE_DEVICES for each
// step"; with ConstrainDevices=yes in cgroup.conf the job sees only those
// devices, numbered from 0). A fixed list replaces that: under device
// cgroups it names the job's own GPUs only when it lists as many as were
// allocated; without them it names the node's first GPUs, which may be
// another job's. Held-out round 28: NHR's 2-task DeepSpeed job under
// --gres=gpu:a100:2.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace lg::audit::detail {

void visible_devices_findings(FindingContext& c)
{
  const Launch* l = c.job.launch;
  if (l == nullptr || c.job.component < 0 || !requests_gpus(c.model, c.job.component)) {
    return;
  }
  const int launch_begin = c.model.commands[static_cast<std::size_t>(l->command)].begin;
  for (const auto& a : c.model.assignments) {
    if (a.name != "CUDA_VISIBLE_DEVICES" || a.offset >= launch_begin || a.prefix || a.kind != AssignKind::assign
        || !a.known || a.value.size() != 1 || c.model.in_function(a.offset)) {
      continue;
    }
    // `0,1` or `"0, 1, 2, 3"` (held-out round 30's JSC job).
    std::string v = a.value.front().text();
    std::erase(v, ' ');
    if (v.empty() || v.find_first_not_of("0123456789,") != std::string::npos || v.front() == ',') {
      continue;
    }
    const int listed = static_cast<int>(std::count(v.begin(), v.end(), ',')) + 1;
    const int gpus = c.job.gpus_per_node;
    const bool differs = gpus > 0 && listed != gpus;
    c.add(differs ? Severity::warning : Severity::advice, "audit.visible_devices_fixed",
          fmt::format("CUDA_VISIBLE_DEVICES={} replaces the GPUs Slurm gave the job on the node{}: without device "
                      "cgroups (ConstrainDevices) these are the node's first GPUs, which may be another job's",
                      v,
                      differs ? fmt::format(" ({} listed, {} allocated: {})", listed, gpus,
                                            listed < gpus ? "the others stay idle" : "some do not exist in the job")
                              : ""),
          "drop the line: Slurm sets CUDA_VISIBLE_DEVICES to the job's GPUs", a.offset);
  }
}

} // namespace lg::audit::detail
