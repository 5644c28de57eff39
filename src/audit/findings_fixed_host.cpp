// `torchrun --rdzv_endpoint 172.100.100.10:29500` (or --master_addr,
// accelerate's --main_process_ip, deepspeed's --master_addr) written as a
// literal address in a batch job of several nodes: Slurm picks the job's
// nodes when it starts it, so a fixed address is one machine, in this
// allocation only by chance; where it is not, every node's rendezvous waits
// on a host outside the job until the timeout. Held-out round 31's 2-node
// singularity job, which also computed MASTER_ADDR from the node list and
// never used it. Not for loopback (one node) or names the script computes;
// advice for a job pinned to a node list (--nodelist), which may hold the host.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <string>

namespace lg::audit::detail {

namespace {

// A dotted IPv4 address at the start of `t` (before ':' or the end), not loopback.
std::string literal_ipv4(const std::string& t)
{
  const std::string host = t.substr(0, t.find(':'));
  int dots = 0;
  int digits = 0;
  for (char ch : host) {
    if (ch == '.') {
      if (digits == 0) {
        return {};
      }
      ++dots;
      digits = 0;
    } else if (ch >= '0' && ch <= '9' && digits < 3) {
      ++digits;
    } else {
      return {};
    }
  }
  if (dots != 3 || digits == 0 || host.starts_with("127.") || host == "0.0.0.0") {
    return {};
  }
  return host;
}

} // namespace

void fixed_host_findings(FindingContext& c)
{
  if (c.job.nodes <= 1) {
    return;
  }
  const bool pinned = c.model.directive("nodelist") != nullptr;
  for (const Launch& l : c.model.launches) {
    for (const LaunchStage& stage : l.stages) {
      for (const char* name : {"rdzv_endpoint", "master_addr", "main_process_ip"}) {
        const LaunchOption* o = stage.find(name);
        if (o == nullptr || !o->value || !o->value->known || !o->value->expanded.empty()) {
          continue;
        }
        const std::string host = literal_ipv4(o->value->text());
        if (host.empty()) {
          continue;
        }
        c.add(pinned ? Severity::advice : Severity::warning, "audit.fixed_rendezvous_host",
              pinned ? fmt::format("{} --{} {} names a fixed address: the rendezvous works only while {} is the "
                                   "address of one of the --nodelist hosts on the network NCCL uses",
                                   stage.tool, o->name, o->value->text(), host)
                     : fmt::format("{} --{} {} names a fixed address in a job of {} nodes Slurm picks when it starts "
                                   "it: the rendezvous waits on {}, a node of this job only by chance",
                                   stage.tool, o->name, o->value->text(), c.job.nodes, host),
              "use the job's first node: HEAD=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1), "
              "then --rdzv-endpoint \"$HEAD:29500\"",
              o->value->offset);
        return;
      }
    }
  }
}

} // namespace lg::audit::detail
