// Checks of the [slurm] and [launch] values that reach sbatch: `time` and
// `mem` in Slurm's formats, `extra_args` that would change the job preflight
// judged (nodes, GPUs, tasks, heterogeneous components) refused with the key
// to use instead. Formats: Slurm sbatch(1), --time, --mem, "HETEROGENEOUS JOB
// SUPPORT".
#pragma once

#include "config/job_spec.hpp"
#include "config/toml_reader.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lg::config {

// Return the minutes of a Slurm time limit ("90", "1:30:00", "2-12",
// "2-12:30:00", "UNLIMITED" = 0 = none), or nullopt when Slurm would refuse it.
std::optional<long long> parse_slurm_time(std::string_view text);

// True for a Slurm memory size: digits with an optional K, M, G or T suffix.
bool valid_slurm_mem(std::string_view text);

// Append a located problem for each bad time, mem, extra_args entry or workdir.
void check_slurm_fields(std::vector<Problem>& problems, const JobSpec& spec);

} // namespace lg::config
