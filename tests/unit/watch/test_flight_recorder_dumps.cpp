// Finding the NCCL flight recorder's dumps (watch/flight_recorder_dumps.hpp):
// PyTorch's DebugInfoWriter names them c10::str(TORCH_NCCL_DEBUG_INFO_TEMP_FILE, rank)
// (pytorch/pytorch torch/csrc/distributed/c10d/FlightRecorder.hpp), default
// prefix /tmp/nccl_trace_rank_.
#include "watch/flight_recorder_dumps.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <fstream>

namespace fs = std::filesystem;

TEST_SUITE_BEGIN("watch");

TEST_CASE("flight-recorder dumps: per-rank files next to the logs and under the job's prefix, by rank")
{
  char pattern[] = "/tmp/lg-fr-dumps-XXXXXX";
  const fs::path dir = ::mkdtemp(pattern);
  fs::create_directories(dir / "logs");
  fs::create_directories(dir / "traces");
  for (const char* name : {"logs/nccl_trace_rank_10", "logs/nccl_trace_rank_2", "logs/nccl_trace_rank_",
                           "logs/job-7.out", "logs/other_trace_rank_1", "traces/fr_0", "traces/fr_x"}) {
    std::ofstream(dir / name) << "x";
  }
  const std::vector<fs::path> logs = {dir / "logs" / "job-7.out"};
  const auto beside = lg::watch::flight_recorder_dumps(logs, "");
  CHECK(beside == std::vector<fs::path>{dir / "logs" / "nccl_trace_rank_2", dir / "logs" / "nccl_trace_rank_10"});
  // A user's TORCH_NCCL_DEBUG_INFO_TEMP_FILE elsewhere, with its own file prefix.
  const auto own = lg::watch::flight_recorder_dumps(logs, (dir / "traces" / "fr_").string());
  CHECK(own == std::vector<fs::path>{dir / "traces" / "fr_0"});
  CHECK(lg::watch::flight_recorder_dumps({dir / "missing" / "x.out"}, "").empty());
  fs::remove_all(dir);
}

TEST_SUITE_END();
