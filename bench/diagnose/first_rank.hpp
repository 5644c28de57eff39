// First failing rank on generated 64-rank logs: one root cause on one rank,
// then the consequences on the others (watchdog timeouts, peers that lost
// the connection, the launcher's SIGTERMs, the Slurm teardown), written as
// one interleaved srun --label log or as per-rank files in shuffled order,
// with and without timestamps. Messages follow the upstream formats the
// catalogue cites (PyTorch ProcessGroupNCCL, torch elastic, NCCL, Slurm).
#pragma once

#include "diagnose/matcher.hpp"

namespace lg::bench {

// Generate the logs, diagnose each and print the share of runs whose root
// cause category, first failing rank and host are named right, per scenario
// and per layout. Return the share of ranks named right.
double run_first_rank(const diagnose::Matcher& matcher, int trials_per_case);

} // namespace lg::bench
