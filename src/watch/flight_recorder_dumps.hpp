// The NCCL flight recorder's per-rank dump files of a job: PyTorch's
// DebugInfoWriter writes "<TORCH_NCCL_DEBUG_INFO_TEMP_FILE><rank>"
// (pytorch/pytorch torch/csrc/distributed/c10d/FlightRecorder.hpp), and the
// environment launchguard composes puts that prefix next to the job's logs
// (env/flight_recorder.hpp). Listing a directory is all this does.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace lg::watch {

// The files named `<file prefix><rank>…` in the directories of `log_files`
// and in the directory of `dump_prefix` ("logs/nccl_trace_rank_"; its file
// name part is the prefix, "nccl_trace_rank_" when `dump_prefix` is empty),
// ordered by rank. Directories that cannot be read are skipped.
std::vector<std::filesystem::path> flight_recorder_dumps(const std::vector<std::filesystem::path>& log_files,
                                                         const std::string& dump_prefix);

} // namespace lg::watch
