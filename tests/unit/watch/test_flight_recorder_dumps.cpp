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

TEST_CASE("flight-recorder dumps: a prefix per job (%j) lists the diagnosed attempt's dumps, not a retry's")
{
  // launchguard composes TORCH_NCCL_DEBUG_INFO_TEMP_FILE=logs/nccl_trace_%j_rank_
  // (env/flight_recorder.hpp); the job script fills in the job id.
  char pattern[] = "/tmp/lg-fr-jobs-XXXXXX";
  const fs::path dir = ::mkdtemp(pattern);
  fs::create_directories(dir / "logs");
  for (const char* name : {"logs/train-101.out", "logs/train-102.out", "logs/nccl_trace_101_rank_0",
                           "logs/nccl_trace_101_rank_1", "logs/nccl_trace_102_rank_0", "logs/nccl_trace_rank_0"}) {
    std::ofstream(dir / name) << "x";
  }
  const std::string prefix = (dir / "logs" / "nccl_trace_%j_rank_").string();
  const auto first = lg::watch::flight_recorder_dumps({dir / "logs" / "train-101.out"}, prefix, "101");
  CHECK(first == std::vector<fs::path>{dir / "logs" / "nccl_trace_101_rank_0", dir / "logs" / "nccl_trace_101_rank_1"});
  const auto retry = lg::watch::flight_recorder_dumps({dir / "logs" / "train-102.out"}, prefix, "102");
  CHECK(retry == std::vector<fs::path>{dir / "logs" / "nccl_trace_102_rank_0"});
  // No job id given (diagnose LOG): the one the log's name carries (Slurm's %j).
  CHECK(lg::watch::flight_recorder_dumps({dir / "logs" / "train-102.out"}, prefix) == retry);
  // A log whose name carries no job with dumps: none, rather than another job's.
  CHECK(lg::watch::flight_recorder_dumps({dir / "logs" / "train-7.out"}, prefix).empty());
  CHECK(lg::watch::flight_recorder_file_prefix(first.back()) == "nccl_trace_101_rank_");
  fs::remove_all(dir);
}

TEST_SUITE_END();
