// `export NCCL_TIMEOUT=3600`: a name no NCCL release and no PyTorch NCCL
// process group reads (env/nccl_names.hpp, generated from NCCL's whole public
// history), so the setting changes nothing and the job runs with the value
// the writer meant to change. Round 20's scripts set NCCL_TIMEOUT believing
// it raises the collective timeout; that timeout is torch.distributed's
// (init_process_group's `timeout`, Megatron-LM --distributed-timeout-minutes).
// Advice, not a warning: a network or tuner plugin may read names of its own
// (the GCP TCPX/FastRak plugins read NCCL_GPUDIRECTTCPX_*/NCCL_FASTRAK_*), and
// AMD's RCCL reads NCCL_* names NCCL does not: not judged on an AMD GPU.
#include "audit/findings.hpp"

#include "env/nccl_names.hpp"
#include "util/edit_distance.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lg::audit::detail {

namespace {

// Prefixes plugins outside NCCL read (their own documentation; IBEXT is
// the Mellanox nccl-rdma-sharp-plugins' "IBext" network).
constexpr std::array<std::string_view, 7> k_plugin_prefixes = {
  "NCCL_GPUDIRECTTCPX_", "NCCL_FASTRAK_", "NCCL_TCPX_", "NCCL_OFI_", "NCCL_SHARP_", "NCCL_GIB_", "NCCL_IBEXT_"};

// The read name within two edits of `name` (a typo), or "".
std::string nearest(std::string_view name)
{
  std::string best;
  std::size_t best_distance = 3;
  for (std::string_view known : env::nccl_names()) {
    const std::size_t d = lg::edit_distance(name, known);
    if (d < best_distance) {
      best_distance = d;
      best = std::string(known);
    }
  }
  return best;
}

bool judged(std::string_view name)
{
  if (!name.starts_with("NCCL_") || name.size() <= 5 || env::nccl_reads(name)) {
    return false;
  }
  return std::none_of(k_plugin_prefixes.begin(), k_plugin_prefixes.end(),
                      [name](std::string_view p) { return name.starts_with(p); });
}

// The script reads $NAME itself, other than in NAME's own default
// (`NCCL_TIMEOUT=${NCCL_TIMEOUT:-1800}`): a variable of the script's own
// (MLPerf's run.sub: `: "${NCCL_TEST:=1}"`, then `if [[ ${NCCL_TEST} -eq 1 ]]`).
bool script_reads(const ScriptModel& m, const std::string& name)
{
  auto own_value = [&](int offset) {
    return std::any_of(m.assignments.begin(), m.assignments.end(), [&](const Assignment& a) {
      return a.name == name && a.value_offset >= 0 && offset >= a.value_offset && offset < a.value_end;
    });
  };
  auto read = [&](const VarUse& u) { return u.name == name && !own_value(u.offset); };
  return std::any_of(m.uses.begin(), m.uses.end(), read)
         || std::any_of(m.heredoc_uses.begin(), m.heredoc_uses.end(), read);
}

// `NCCL_IB_DISABLE=1` next to NCCL_IB_HCA (or another NCCL_IB_* setting)
// in a job of several nodes: the NCCL manual ("Environment Variables",
// NCCL_IB_DISABLE): "Disable the IB/RoCE transport that is to be used by
// NCCL. Instead, NCCL will fall back to using IP sockets." The IB settings
// are then dead, and the nodes talk over TCP: the script says both that it
// wants InfiniBand tuned and that it does not want it. Round 23's petrelfs
// job (NCCL_IB_DISABLE=1, NCCL_IB_HCA=mlx5_0, 2 nodes). A warning; not
// judged on one node (no network traffic) or with the value unknown.
void ib_disabled_with_ib_settings(FindingContext& c)
{
  const ScriptJob& job = c.job;
  const int nodes = std::max(job.nodes, job.world_nodes);
  const Assignment* off = job.env("NCCL_IB_DISABLE");
  if (job.launch == nullptr || nodes < 2 || off == nullptr || !off->known || off->value.empty()
      || off->value.front().text() != "1") {
    return;
  }
  std::vector<std::string> dead;
  for (const Assignment& a : job.environment) {
    if (a.name.starts_with("NCCL_IB_") && a.name != "NCCL_IB_DISABLE"
        && std::find(dead.begin(), dead.end(), a.name) == dead.end()) {
      dead.push_back(a.name);
    }
  }
  // NCCL_SOCKET_IFNAME=ib0: the sockets NCCL falls back to, over the IPoIB
  // interface, on a cluster that has InfiniBand (round 25's Alvis job).
  const Assignment* ifname = job.env("NCCL_SOCKET_IFNAME");
  const bool ipoib = ifname != nullptr && ifname->known && !ifname->value.empty()
                     && ifname->value.front().text().starts_with("ib");
  if (dead.empty() && ipoib) {
    c.add(Severity::warning, "audit.nccl_ib_disabled",
          fmt::format("NCCL_IB_DISABLE=1 with NCCL_SOCKET_IFNAME={}: the cluster has InfiniBand, and NCCL is told to "
                      "use TCP sockets over it (IPoIB, \"NCCL will fall back to using IP sockets\") instead of its "
                      "RDMA transport, on {} nodes",
                      ifname->value.front().text(), nodes),
          "remove NCCL_IB_DISABLE=1 (NCCL then uses InfiniBand's RDMA verbs)", off->offset);
    return;
  }
  if (dead.empty()) {
    return;
  }
  c.add(Severity::warning, "audit.nccl_ib_disabled",
        fmt::format("NCCL_IB_DISABLE=1 turns NCCL's InfiniBand/RoCE transport off (\"NCCL will fall back to using "
                    "IP sockets\"), so {} {} no effect and the {} nodes exchange gradients over TCP",
                    fmt::join(dead, ", "), dead.size() > 1 ? "have" : "has", nodes),
        "remove NCCL_IB_DISABLE=1 to use the InfiniBand the other settings name (or the IB settings, if the "
        "cluster has none)",
        off->offset);
}

}  // namespace

void nccl_name_findings(FindingContext& c)
{
  ib_disabled_with_ib_settings(c);
  if (c.options.gpu_vendor == "amd" || c.options.gpu_vendor == "ascend") {
    return;  // RCCL and HCCL read names of their own
  }
  // One finding per name, where it is first set, listing its other lines.
  std::vector<std::pair<std::string, std::vector<int>>> seen;  // name, offsets
  auto note = [&](const std::string& name, int offset) {
    if (!judged(name) || offset < 0 || script_reads(c.model, name)) {
      return;
    }
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == name; });
    if (it == seen.end()) {
      seen.push_back({name, {offset}});
    } else if (std::find(it->second.begin(), it->second.end(), offset) == it->second.end()) {
      it->second.push_back(offset);
    }
  };
  for (const Assignment& a : c.model.assignments) {
    if (a.kind != AssignKind::unset) {
      note(a.name, a.offset);
    }
  }
  for (const Launch& l : c.model.launches) {
    if (!l.python) {
      continue;  // `NCCL_SPLIT_MASK=0x7 srun all_reduce_perf`: nccl-tests read names of their own
    }
    for (const Assignment& a : l.env) {
      note(a.name, a.offset);
    }
  }
  for (const auto& [name, offsets] : seen) {
    std::vector<int> lines;
    for (std::size_t i = 1; i < offsets.size(); ++i) {
      const int line = c.model.line_of(offsets[i]);
      if (line != c.model.line_of(offsets.front()) && std::find(lines.begin(), lines.end(), line) == lines.end()) {
        lines.push_back(line);
      }
    }
    const std::string also =
      lines.empty() ? "" : fmt::format(" (set again on line{} {})", lines.size() > 1 ? "s" : "", fmt::join(lines, ", "));
    const std::string typo = nearest(name);
    std::string fix;
    if (!typo.empty()) {
      fix = fmt::format("did you mean {}?", typo);
    } else if (name.find("TIMEOUT") != std::string::npos) {
      fix = "the collective timeout is torch.distributed's: init_process_group(timeout=…), Megatron-LM "
            "--distributed-timeout-minutes (NCCL_IB_TIMEOUT is InfiniBand's retransmission timeout, not it)";
    } else {
      fix = "remove it, or check the name against the NCCL manual's \"Environment Variables\" (or the plugin that "
            "reads it)";
    }
    c.add(Severity::advice, "audit.nccl_name_unread",
          fmt::format("{} is read by no NCCL release and not by PyTorch's NCCL process group: setting it changes "
                      "nothing{}",
                      name, also),
          std::move(fix), offsets.front());
  }
}

}  // namespace lg::audit::detail
