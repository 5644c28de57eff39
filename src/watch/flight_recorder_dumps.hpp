// The NCCL flight recorder's per-rank dump files of a job: PyTorch's
// DebugInfoWriter writes "<TORCH_NCCL_DEBUG_INFO_TEMP_FILE><rank>"
// (pytorch/pytorch torch/csrc/distributed/c10d/FlightRecorder.hpp), and the
// environment launchguard composes puts that prefix next to the job's logs,
// with the job id in it (env/flight_recorder.hpp: "logs/nccl_trace_%j_rank_",
// the job script filling in %j), so each attempt has its own dumps. Listing
// a directory is all this does.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace lg::watch {

// The files named `<file prefix><rank>…` in the directories of `log_files`
// and in the directory of `dump_prefix` ("logs/nccl_trace_%j_rank_"; its file
// name part is the prefix, "nccl_trace_rank_" when `dump_prefix` is empty),
// ordered by rank. "%j" in the prefix is `job_id`, the job being diagnosed;
// with no `job_id`, the job ids that name one of `log_files` (a run of digits
// in its file name, as Slurm's %j writes it) are tried, and nothing is listed
// when none has dumps: another job's dumps are not this one's. Directories
// that cannot be read are skipped.
std::vector<std::filesystem::path> flight_recorder_dumps(const std::vector<std::filesystem::path>& log_files,
                                                         const std::string& dump_prefix,
                                                         const std::string& job_id = {});

// The file name prefix of `dump` ("nccl_trace_1234_rank_" for
// ".../nccl_trace_1234_rank_3"): what fr_trace's --prefix takes.
std::string flight_recorder_file_prefix(const std::filesystem::path& dump);

} // namespace lg::watch
