// Exit codes: 0 ok, 1 job errors, 2 usage/input, 3 Slurm/system, 130 interrupted.
#pragma once

namespace lg {

inline constexpr int k_exit_ok = 0;
inline constexpr int k_exit_job_errors = 1;  // check/audit found errors; job failed for good
inline constexpr int k_exit_usage = 2;       // usage or input error
inline constexpr int k_exit_system = 3;      // Slurm or system failure
inline constexpr int k_exit_interrupted = 130;

} // namespace lg
