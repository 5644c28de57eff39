// Root-cause ordering: the first cause wins, across ranks and files; symptoms
// of another rank's failure never do (the causal ranks of signatures/default.toml).
#include "diagnose/diagnose.hpp"
#include "diagnose/timestamp.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace lg::diagnose;

namespace {

const Matcher& matcher()
{
  static const Matcher compiled(default_catalogue());
  return compiled;
}

const char* const k_oom =
  "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of "
  "79.10 GiB of which 1.00 GiB is free. Including non-PyTorch memory, this process has 78.10 GiB memory in use. Of "
  "the allocated memory 77.00 GiB is allocated by PyTorch, and 100.00 MiB is reserved by PyTorch but unallocated.";

const char* const k_timeout =
  "[rank0]:[E501 14:31:07.408271257 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation "
  "timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600060 "
  "milliseconds before timing out.";

} // namespace

TEST_SUITE_BEGIN("diagnose");

TEST_CASE("ordering: an NCCL timeout after another rank's OOM is not the cause")
{
  const std::string rank0 = std::string("[2024-05-01 14:21:00] iteration 100/ 1000 |\n") + k_timeout + "\n" +
                            "[rank0]: Some NCCL operations have failed or timed out.\n";
  const std::string rank3 = std::string("[2024-05-01 14:21:05] iteration 100/ 1000 |\n") + k_oom + "\n";
  const Diagnosis d = diagnose({{"rank0.out", rank0}, {"rank3.out", rank3}}, matcher());
  CHECK(d.category == "cuda_oom_capacity");
  REQUIRE_FALSE(d.evidence.empty());
  CHECK(d.evidence[0].file == "rank3.out");
  CHECK(d.evidence[0].line == 2);
  REQUIRE_FALSE(d.consequences.empty());
  CHECK(d.consequences[0] == "nccl_timeout");
  // Same in one interleaved file, timeout printed first.
  const std::string both = std::string(k_timeout) + "\n" + k_oom + "\n";
  CHECK(diagnose({{"job.out", both}}, matcher()).category == "cuda_oom_capacity");
}

TEST_CASE("ordering: among causes of the same rank, the earliest timestamp wins across files")
{
  const std::string late = "[2024-05-01 14:25:00] start\nRuntimeError: CUDA error: an illegal memory access was "
                           "encountered\n";
  const std::string early = "[2024-05-01 14:20:00] start\nAssertionError: Rank 11: found NaN in local grad norm in "
                            "backward pass before data-parallel communication collective. Device: 3\n";
  const Diagnosis d = diagnose({{"a.out", late}, {"b.out", early}}, matcher());
  CHECK(d.category == "loss_nan_divergence");
  CHECK(d.evidence[0].file == "b.out");
  // Without timestamps the file order decides.
  const Diagnosis untimed =
    diagnose({{"a.out", "RuntimeError: CUDA error: an illegal memory access was encountered\n"},
              {"b.out", "Exception: Current loss scale already at minimum - cannot decrease scale anymore.\n"}},
             matcher());
  CHECK(untimed.category == "illegal_memory_access");
}

TEST_CASE("ordering: hardware surfaces through the watchdog and still wins")
{
  const std::string text = "[E ProcessGroupNCCL.cpp:916] [Rank 1] NCCL watchdog thread terminated with exception: "
                           "CUDA error: uncorrectable ECC error encountered\n";
  CHECK(diagnose({{"job.out", text}}, matcher()).category == "gpu_hardware");
}

TEST_CASE("ordering: Slurm's CANCELLED without DUE TO is a consequence; DUE TO TIME LIMIT is a cause")
{
  const std::string host_oom =
    "slurmstepd: error: Detected 1 oom-kill event(s) in step 3495064.0 cgroup.\n"
    "srun: error: Orion-01-01: task 4: Out Of Memory\n"
    "slurmstepd: error: *** STEP 3495064.0 ON orion-01-01 CANCELLED AT 2021-10-27T19:35:36 ***\n";
  CHECK(diagnose({{"job.out", host_oom}}, matcher()).category == "host_oom");
  const std::string time_limit = std::string(k_timeout) + "\n" +
                                 "slurmstepd: error: *** JOB 494583 ON gpu1 CANCELLED AT 2024-04-20T09:09:37 DUE TO "
                                 "TIME LIMIT ***\nsrun: error: gpu1: task 0: Killed\n";
  CHECK(diagnose({{"job.out", time_limit}}, matcher()).category == "slurm_time_limit");
}

TEST_CASE("ordering: a time limit after training finished is a shutdown hang, not a reason for more time")
{
  const std::string text = "[after training is done] datetime: 2024-09-01 10:00:00\n"
                           "slurmstepd: error: *** STEP 9.0 ON n1 CANCELLED AT 2024-09-01T12:00:00 DUE TO TIME "
                           "LIMIT ***\n";
  const Diagnosis d = diagnose({{"job.out", text}}, matcher());
  CHECK(d.category == "hang_no_progress");
  CHECK_FALSE(d.retryable);
  CHECK(d.suggested_change.empty());
  CHECK(d.fix.find("shutdown hang") != std::string::npos);
  // Megatron-Bridge#3427: the step cancelled after "[after training is done]", no reason printed
  const std::string teardown = "[after training is done] datetime: 2026-04-20 03:17:08\n"
                               "[2026-04-20T03:25:23.011] error: *** STEP 1942963.1 ON n1 CANCELLED AT "
                               "2026-04-20T03:25:23 ***\n";
  CHECK(diagnose({{"job.out", teardown}}, matcher()).category == "hang_no_progress");
}

TEST_CASE("ordering: a garbage 1EB request after a desync does not beat the timeout")
{
  const std::string text = std::string(k_timeout) +
                           "\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate more than 1EB memory.\n";
  CHECK(diagnose({{"job.out", text}}, matcher()).category == "nccl_timeout");
  CHECK(diagnose({{"job.out", "CUDA out of memory. Tried to allocate more than 1EB memory."}}, matcher()).category ==
        "unknown");
}

TEST_CASE("timestamps: ISO, Python logging, torchrun and PyTorch glog forms")
{
  const auto iso = find_timestamp("slurmstepd: error: *** JOB 1 ON n CANCELLED AT 2024-04-20T09:09:37 ***");
  REQUIRE(iso.has_value());
  CHECK(iso->year == 2024);
  CHECK(iso->seconds == doctest::Approx(9 * 3600 + 9 * 60 + 37));
  const auto logging = find_timestamp("[2024-07-17 19:44:06,829] [INFO] [loss_scaler.py:190]");
  REQUIRE(logging.has_value());
  CHECK(logging->seconds == doctest::Approx(19 * 3600 + 44 * 60 + 6.829));
  REQUIRE(find_timestamp("  time      : 2025-05-21_15:43:03").has_value());
  const auto glog = find_timestamp("[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616]");
  REQUIRE(glog.has_value());
  CHECK(glog->month == 6);
  CHECK(glog->day == 26);
  CHECK_FALSE(find_timestamp("iteration 10/ 100 | lm loss: 2.3E+00").has_value());
  CHECK(compare(*glog, *iso) > 0);  // no year on one side: month and day decide
}

TEST_SUITE_END();
