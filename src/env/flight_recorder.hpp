// PyTorch's NCCL flight recorder for the jobs launchguard composes, so that a
// hang or a collective timeout leaves per-rank dumps where `diagnose` and
// `watch` look: next to the job's logs. The variables, as ProcessGroupNCCL
// reads them (pytorch/pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp,
// FlightRecorder.hpp/.cpp):
//   TORCH_NCCL_TRACE_BUFFER_SIZE     ring-buffer entries (one per collective start
//                                    or end); 0 turns the recorder off (the default
//                                    before PyTorch 2.6, 2000 since; TORCH_FR_BUFFER_SIZE
//                                    is the 2.9 name, the old one stays an alias);
//   TORCH_NCCL_DUMP_ON_TIMEOUT       dump on a watchdog timeout or a collective error
//                                    (default false before 2.6, true since);
//   TORCH_NCCL_DEBUG_INFO_TEMP_FILE  the dump's path prefix, the rank appended
//                                    (DebugInfoWriter: c10::str(prefix, rank); default
//                                    /tmp/nccl_trace_rank_, on each node's own disk;
//                                    TORCH_FR_DUMP_TEMP_FILE is the newer name).
// The dumps are read with `python -m torch.distributed.flight_recorder.fr_trace
// DIR --prefix nccl_trace_rank_`.
#pragma once

#include "config/job_spec.hpp"
#include "env/environment.hpp"
#include "env/policy.hpp"

#include <optional>
#include <string>

namespace lg::env {

// PyTorch's dump file name prefix (the rank follows it).
inline constexpr const char* k_flight_recorder_file_prefix = "nccl_trace_rank_";

// The file name prefix launchguard composes: "%j" is the Slurm job id (the
// job script fills it in), so a later attempt's dumps never overwrite an
// earlier one's, and each attempt's diagnosis lists its own.
inline constexpr const char* k_flight_recorder_job_file_prefix = "nccl_trace_%j_rank_";

// Where the job's dumps go: "<the directory of [launch] output>/nccl_trace_%j_rank_"
// when that directory is the same for every job and task (no %-placeholder)
// and is where the trainer resolves it too (an absolute path, or the default
// workdir "." where relative paths mean the submit directory for Slurm and
// the trainer alike); empty otherwise (PyTorch's per-node /tmp default).
std::string flight_recorder_prefix(const config::LaunchSpec& launch);

// The composed TORCH_NCCL_DEBUG_INFO_TEMP_FILE (the user's value when given),
// or "" when the job leaves PyTorch's default.
std::string flight_recorder_dump_prefix(const Environment& environment);

// The policy rows (policy.cpp lists them).
std::optional<Decision> flight_recorder_buffer_row(const JobFeatures& features);
std::optional<Decision> flight_recorder_dump_row(const JobFeatures& features);
std::optional<Decision> flight_recorder_file_row(const JobFeatures& features);

} // namespace lg::env
