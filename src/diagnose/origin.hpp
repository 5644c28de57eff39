// Where a log line comes from: the rank and the host it names. Launchers and
// libraries each mark lines their own way, and the diagnosis uses every mark
// it knows (which rank failed first, which node to exclude):
//   rank: torchrun's "[rank3]:" prefix (torch/distributed/elastic, --tee /
//         --log-line-prefix-template), srun --label "3: ", ProcessGroupNCCL's
//         "[Rank 3]" / "[PG 0 Rank 3]", Megatron's "Rank 3, node n1, device 2"
//         and "Rank 3: found NaN", torchrun's ChildFailedError block
//         ("rank      : 3 (local_rank: 3)"), NCCL's "comm 0x… rank 3 nranks 8",
//         a per-rank file name ("rank3.out", "task-3.log");
//   host: NCCL's "host:pid:tid [dev]" prefix (src/include/debug.h), Slurm's
//         "slurmstepd-n1:", "srun: error: n1: task 3:", "*** STEP 1.0 ON n1
//         CANCELLED", "Node failure on n1", syslog "Jun  1 12:00:00 n1 kernel:",
//         ChildFailedError's "host      : n1", Megatron's "node n1" / "node: n1",
//         "hostname=n1".
// Pure; no I/O.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace lg::diagnose {

struct Origin
{
  std::optional<int> rank;
  std::string host;
};

// Return the rank and host that `line` itself names (either may be absent).
Origin origin_of_line(std::string_view line);

// Return the origin of the line at `offset` of `text`: what the line names,
// completed from the lines just above it when they are one block with it
// (torchrun's ChildFailedError fields), then from `file_name` for the rank.
Origin origin_of_hit(std::string_view text, std::size_t offset, std::string_view file_name);

// Return the rank a per-rank log's file name names ("rank3.out",
// "logs/train-rank_12.log", "task-3.err"), or nullopt.
std::optional<int> rank_from_file_name(std::string_view file_name);

// The hosts a log names on its NCCL lines (NCCL's init lines carry the host
// and the rank): per rank, and the first one (a per-rank file has one).
struct Hosts
{
  std::map<int, std::string> by_rank;
  std::string first;
};

// Return the hosts named on the NCCL lines of the first few MiB of `text`.
Hosts hosts_in_text(std::string_view text);

} // namespace lg::diagnose
