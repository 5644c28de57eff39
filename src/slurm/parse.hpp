// Pure parsers for the output of Slurm's command-line tools, and the format
// strings that produce it. Garbage in gives "nothing" or JobState::unknown,
// never an exception: Slurm output is not an input the user can fix.
#pragma once

#include "slurm/job_status.hpp"

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lg::slurm {

// sacct --format for parse_sacct. Comment is last so that a '|' inside it
// cannot shift the other columns.
inline constexpr std::string_view k_sacct_format =
  "JobID,JobName,State,ExitCode,Elapsed,NodeList,Reason,Comment";

// squeue --format for parse_squeue (%k = comment, last for the same reason).
inline constexpr std::string_view k_squeue_format = "%i|%j|%T|%M|%N|%r|%k";

// Return the job id from `sbatch --parsable` output: "12345" or
// "12345;cluster". Nothing if the output holds no job id.
std::optional<JobId> parse_sbatch_parsable(std::string_view out);

// Parse `sacct --parsable2 --noheader --format=<k_sacct_format>` output.
// Step lines ("123.batch", "123.0") are attached to their job; lines that do
// not fit the format are skipped.
std::vector<JobStatus> parse_sacct(std::string_view out);

// Parse `squeue --noheader --format=<k_squeue_format>` output.
std::vector<JobStatus> parse_squeue(std::string_view out);

// Slurm's own spelling of a job id: leading zeros dropped ("0181" is job
// 181, as sacct and squeue print it); suffixes ("_7", "+1") kept.
JobId canonical_job_id(std::string_view id);

// The statuses in `reported` (sacct/squeue answers) for the `requested` ids,
// one per requested id Slurm reported, under the requested spelling:
// "0181" matches 181; a heterogeneous job "181" is the sum of its
// components "181+0", "181+1" (squeue -j 181 lists only those), an array job
// "180" of its tasks "180_1", "180_[2-9]". A sum has not ended while any
// part waits or runs; once all ended it takes the first part's state that is
// not COMPLETED; steps and node lists are joined.
std::vector<JobStatus> match_requested(std::span<const JobId> requested,
                                       const std::vector<JobStatus>& reported);

// Parse an ExitCode column "code:signal" ("0:9", "1:0").
std::optional<ExitStatus> parse_exit_status(std::string_view text);

// True when `name` can be a Slurm node name: a hostname's characters
// ([A-Za-z0-9._-], a letter or digit first, at most 64), nothing a hostlist
// expression or a shell would read another way.
bool is_node_name(std::string_view name);

// The node names of a NodeList: "n1", "n1,n3", "gpu[01-03,7]", "a[1-2],b5"
// (Slurm's hostlist form, a zero-padded range keeping its width). nullopt for
// what this does not read (more than one bracket in a name, a bad range,
// a name that is not a node name) or more than `max_nodes` nodes; empty for
// an empty list.
std::optional<std::vector<std::string>> expand_node_list(std::string_view node_list, std::size_t max_nodes = 65536);

// Which nodes a job that ended NODE_FAIL may have lost, from Slurm's own
// accounting record of it (the sacct answer the watch already has: no extra
// query). The job's NodeList names every node of the allocation; a step
// that ended NODE_FAIL ran on the failed node, so the candidates are the
// nodes every NODE_FAIL step ran on (a batch step on its one batch host
// narrows it to that host), else the allocation's nodes.
struct NodeFailCandidates
{
  std::vector<std::string> nodes;  // sorted; one: the failed node
  std::string source;              // "the NODE_FAIL step 12.batch's NodeList", "the job's NodeList"
};
NodeFailCandidates node_fail_candidates(const JobStatus& status);

// The sbatch option that keeps a job off `nodes` ("--exclude=n1,n3"); the
// nodes must be node names (is_node_name).
std::string exclude_argument(const std::vector<std::string>& nodes);

// Parse a duration as Slurm prints it: "[D-]HH:MM:SS", "MM:SS" (squeue
// "0:03"), with optional fractional seconds.
std::optional<std::chrono::seconds> parse_duration(std::string_view text);

// Return true if `err` (a Slurm tool's stderr) says Slurm was unreachable or
// busy, as opposed to refusing the request.
bool is_transient_error(std::string_view err);

// Return true if `err` says accounting (slurmdbd) cannot answer at all, so
// squeue is the only source of job states.
bool is_accounting_unavailable(std::string_view err);

// Return Slurm's reason from an error text: the last "error:" line without
// its "sbatch: error: " and "Batch job submission failed: " prefixes.
std::string slurm_error_reason(std::string_view err);

} // namespace lg::slurm
