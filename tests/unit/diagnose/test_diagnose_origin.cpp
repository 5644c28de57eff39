// The first failing rank and its host, across per-rank files and interleaved
// `[rank N]:` logs; the other ranks' lines as consequences. Line formats:
// torchrun's "[rankN]:" prefix and ChildFailedError block (torch/distributed/
// elastic), srun --label and "srun: error: <node>: task N:" (Slurm
// src/srun/launch.c), NCCL's "host:pid:tid [dev]" prefix (nccl src/debug.cc),
// ProcessGroupNCCL's "[Rank N]", Megatron's rerun_state_machine "Rank N, node X".
#include "support/default_matcher.hpp"
#include "diagnose/diagnose.hpp"
#include "diagnose/origin.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace lg::diagnose;

namespace {

const char* const k_timeout_of_rank[] = {
  "[E501 14:31:07.4 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: "
  "WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600060 milliseconds "
  "before timing out.",
  "[E501 14:31:07.4 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective operation timeout: "
  "WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600060 milliseconds "
  "before timing out.",
  "",
  "[E501 14:31:07.4 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught collective operation timeout: "
  "WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600060 milliseconds "
  "before timing out.",
};

} // namespace

TEST_SUITE_BEGIN("diagnose");

TEST_CASE("origin: the rank and host each launcher and library writes on a line")
{
  struct Case
  {
    const char* line;
    std::optional<int> rank;
    const char* host;
  };
  const Case cases[] = {
    {"[rank14]: AssertionError: Number of layers should be divisible", 14, ""},
    {"15: [rank15]:   File \"transformer_block.py\", line 110", 15, ""},
    {"i.pretrain/0 [default2]:[rank2]: RuntimeError: boom", 2, ""},
    {"[80746] [rank0]:[E321 02:07:08.408 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught", 0, ""},
    {"[E ProcessGroupNCCL.cpp:737] [Rank 3] Watchdog caught collective operation timeout", 3, ""},
    {"7: gpu-node000:41007:41107 [7] NCCL INFO comm 0x55 rank 7 nranks 8 cudaDev 7 busId 8000 - Init COMPLETE", 7,
     "gpu-node000"},
    {"kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer", std::nullopt,
     "kp-ddp-worker-0"},
    {"[2025-06-23 17:44:58] fs-mbz-gpu-870:4006504:4008256 [6] misc/ibvwrap.cc:178 NCCL WARN Call", std::nullopt,
     "fs-mbz-gpu-870"},
    {"srun: error: gpu20-15: task 3: Out Of Memory", 3, "gpu20-15"},
    {"slurmstepd-falkor7: error: Step 1141810.0 exceeded memory limit", std::nullopt, "falkor7"},
    {"slurmstepd: error: *** STEP 4714782.0 ON ib12gpu-001 CANCELLED AT 2023-11-29T15:47:21 ***", std::nullopt,
     "ib12gpu-001"},
    {"salloc: error: Node failure on worker-1", std::nullopt, "worker-1"},
    {"Jun  1 12:00:00 gpu-node4 kernel: NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.", std::nullopt,
     "gpu-node4"},
    {"RuntimeError: Rank 2, node dcfai-xe9680-01, device 2, iteration -1: Unexpected result nan", 2,
     "dcfai-xe9680-01"},
    {"cuDNN failure 2: CUDNN_STATUS_ALLOC_FAILED ; GPU=0 ; hostname=PTNUWCL5099642 ; expr=finder", std::nullopt,
     "PTNUWCL5099642"},
    {"slurmstepd: error: *** JOB 494583 ON ... CANCELLED AT 2024-04-20T09:09:37 DUE TO TIME LIMIT ***", std::nullopt,
     ""},
    {" iteration     3383/    8000 | consumed samples:       216512 |", std::nullopt, ""},
  };
  for (const auto& c : cases) {
    const std::string line = c.line;
    CAPTURE(line);
    const Origin origin = origin_of_line(line);
    CHECK(origin.rank == c.rank);
    CHECK(origin.host == c.host);
  }
  CHECK(rank_from_file_name("logs/rank3.out") == 3);
  CHECK(rank_from_file_name("logs/train-rank_12.log") == 12);
  CHECK(rank_from_file_name("out/4242-task7.err") == 7);
  CHECK_FALSE(rank_from_file_name("slurm-4242.out").has_value());
  CHECK_FALSE(rank_from_file_name("ranking.log").has_value());
}

TEST_CASE("origin: torchrun's ChildFailedError block names the rank and host of its exit code")
{
  const std::string text = "Root Cause (first observed failure):\n[0]:\n  time      : 2025-05-21_15:43:03\n"
                           "  host      : worker-7\n  rank      : 12 (local_rank: 4)\n"
                           "  exitcode  : -11 (pid: 14750)\n  error_file: <N/A>\n"
                           "  traceback : Signal 11 (SIGSEGV) received by PID 14750\n";
  const Diagnosis d = diagnose({{"job.out", text}}, lg::testing::default_matcher());
  CHECK(d.category == "segfault");
  CHECK(d.first_failing_rank == 12);
  CHECK(d.host == "worker-7");
}

TEST_CASE("origin: per-rank files in any order; the OOM's rank and host, the timeouts as consequences")
{
  std::vector<std::string> texts(4);
  for (int rank = 0; rank < 4; ++rank) {
    texts[rank] = "gpu-node00" + std::to_string(rank / 2) + ":100:200 [" + std::to_string(rank % 2) +
                  "] NCCL INFO comm 0x55 rank " + std::to_string(rank) + " nranks 4 cudaDev 0 busId 1000 - Init "
                  "COMPLETE\n";
    texts[rank] += rank == 2 ? "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a "
                               "total capacity of 79.10 GiB of which 1.21 GiB is free. Of the allocated memory 74.12 "
                               "GiB is allocated by PyTorch, and 0.23 GiB is reserved by PyTorch but unallocated.\n"
                             : std::string(k_timeout_of_rank[rank]) + "\n";
  }
  // Files given in shuffled order: the causal rank decides, not the order.
  const std::vector<LogFile> logs = {
    {"logs/rank3.log", texts[3]}, {"logs/rank0.log", texts[0]}, {"logs/rank2.log", texts[2]},
    {"logs/rank1.log", texts[1]}};
  const Diagnosis d = diagnose(logs, lg::testing::default_matcher());
  CHECK(d.category == "cuda_oom_capacity");
  CHECK(d.first_failing_rank == 2);
  CHECK(d.host == "gpu-node001");
  REQUIRE(d.consequence_events.size() == 3);
  for (const auto& event : d.consequence_events) {
    CHECK(event.category == "nccl_timeout");
    CHECK(event.rank != 2);
    CHECK_FALSE(event.host.empty());  // each rank's file names its host
  }
}

TEST_CASE("origin: the same failure on several ranks: the first in time is the first failing rank")
{
  // NCCL prefixes a timestamp when NCCL_DEBUG_TIMESTAMP_FORMAT is set; the
  // peer that saw the completion error last is listed as a consequence.
  const std::string early = "[2025-06-23 17:44:58] n2:1:1 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got "
                            "completion from peer 10.0.0.7<54862> with status=12 opcode=0 len=0 vendor err 129\n";
  const std::string late = "[2025-06-23 17:45:03] n1:1:1 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got "
                           "completion from peer 10.0.0.9<54862> with status=5 opcode=0 len=0 vendor err 249\n";
  const Diagnosis d = diagnose({{"rank1.log", late}, {"rank5.log", early}}, lg::testing::default_matcher());
  CHECK(d.category == "nccl_error");
  CHECK(d.first_failing_rank == 5);
  CHECK(d.host == "n2");
  REQUIRE(d.consequence_events.size() == 1);
  CHECK(d.consequence_events[0].rank == 1);
}

TEST_CASE("origin: an interleaved srun --label log; Slurm's task line gives the host of the failing rank")
{
  const std::string text = std::string("0: [rank0]:") + k_timeout_of_rank[0] +
                           "\n2: [rank2]: RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
                           "1: [rank1]:" + k_timeout_of_rank[1] +
                           "\nsrun: error: gpu-node001: task 2: Exited with exit code 1\n"
                           "srun: error: gpu-node000: task 0: Terminated\n";
  const Diagnosis d = diagnose({{"job.out", text}}, lg::testing::default_matcher());
  CHECK(d.category == "gpu_hardware");
  CHECK(d.first_failing_rank == 2);
  CHECK(d.host == "gpu-node001");  // the node to exclude
  bool terminated_listed = false;
  for (const auto& event : d.consequence_events) {
    terminated_listed |= event.rank == 0 && event.category == "unknown";
  }
  CHECK(terminated_listed);
}

TEST_CASE("origin: only timeouts: the rank that printed none is named as the suspect")
{
  // ProcessGroupNCCL.cpp watchdog lines from ranks 0, 1 and 3; rank 2 is silent.
  const std::string text = std::string("0: [rank0]:") + k_timeout_of_rank[0] + "\n1: [rank1]:" + k_timeout_of_rank[1] +
                           "\n3: [rank3]:" + k_timeout_of_rank[3] + "\n";
  const Diagnosis d = diagnose({{"job.out", text}}, lg::testing::default_matcher());
  CHECK(d.category == "nccl_timeout");
  CHECK(d.reason.find("rank 2 printed none") != std::string::npos);
}

TEST_CASE("origin: a hardware fix names the node to exclude")
{
  // NVRM Xid in the kernel log (syslog prefix names the host).
  const Diagnosis d = diagnose({{"dmesg.txt", "Jun  1 12:00:00 gpu-node4 kernel: NVRM: Xid (PCI:0000:3b:00): 79, "
                                              "pid=1234, name=python, GPU has fallen off the bus.\n"}},
                               lg::testing::default_matcher());
  CHECK(d.category == "gpu_hardware");
  CHECK(d.host == "gpu-node4");
  CHECK(d.fix.find("--exclude=gpu-node4") != std::string::npos);
}

TEST_CASE("origin: in one log, a line flushed late but stamped earlier is the first failure")
{
  // Two ranks report the same NCCL fabric error (nccl src/transport/net_ib.cc);
  // rank 5's stderr reached the log last, its timestamp is the earlier one.
  const std::string text = "1: [2025-06-23 17:45:03] n1:1:1 [1] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got "
                           "completion from peer 10.0.0.9<54862> with status=5 opcode=0 len=0 vendor err 249\n"
                           "5: [2025-06-23 17:44:58] n2:1:1 [5] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got "
                           "completion from peer 10.0.0.7<54862> with status=12 opcode=0 len=0 vendor err 129\n";
  const Diagnosis d = diagnose({{"job.out", text}}, lg::testing::default_matcher());
  CHECK(d.first_failing_rank == 5);
  CHECK(d.host == "n2");
}

TEST_SUITE_END();
