// `deepspeed --hostfile hosts train.py` in the batch shell of a job of
// several nodes: DeepSpeed's runner starts the other nodes' ranks through its
// multi-node launcher, pdsh by default (deepspeedai/DeepSpeed
// deepspeed/launcher/runner.py, `--launcher` default PDSH_LAUNCHER;
// multinode_runner.py, PDSHRunner: `pdsh -S -f 1024 -w HOSTS …`), that is
// over ssh, outside any Slurm step: the nodes need passwordless ssh to each
// other, and Slurm neither confines those processes to the job's CPUs and
// GPUs nor stops them when the job ends (unless the site adopts ssh sessions
// into the job with pam_slurm_adopt). `--launcher slurm` makes DeepSpeed
// start them with srun. Held-out round 26's 2-node DeepSpeed job. Advice: on
// a cluster that allows it, the job runs.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <string>

namespace lg::audit::detail {

void ssh_rank_findings(FindingContext& c)
{
  for (const Launch& l : c.model.launches) {
    const LaunchStage* ds = l.stage("deepspeed");
    if (ds == nullptr || l.has("srun") || l.has("mpirun") || ds->find("no_ssh") != nullptr
        || ds->find("force_multi") != nullptr) {
      continue;
    }
    // Several nodes: a hostfile (or -H), and a job of more than one node.
    const bool hostfile = ds->find("hostfile") != nullptr || ds->find("H") != nullptr;
    if (!hostfile || c.job.nodes <= 1) {
      continue;
    }
    if (const LaunchOption* launcher = ds->find("launcher")) {
      if (!launcher->value || !launcher->value->known || launcher->value->text() != "pdsh") {
        continue;  // slurm, openmpi, mvapich, impi: ranks through the job's own launcher
      }
    }
    c.add(Severity::advice, "audit.ranks_over_ssh",
          fmt::format("deepspeed --hostfile starts the {} ranks with pdsh (its default --launcher), over "
                      "ssh and outside any Slurm step: the nodes need passwordless ssh to each other, and Slurm does "
                      "not confine those processes to the job's GPUs or stop them when the job ends",
                      c.job.nodes == 2 ? std::string("other node's") : fmt::format("other {} nodes'", c.job.nodes - 1)),
          "pass --launcher slurm (DeepSpeed then starts the ranks with srun), or start one `deepspeed` per node "
          "under srun with --no_ssh and --node_rank",
          ds->offset);
  }
}

} // namespace lg::audit::detail
