// Lines that look like failures but are not: warnings, config dumps,
// progress and memory reports with alarming words (each from the upstream
// project named in the line itself: PyTorch c10 warnings, Megatron-LM's
// training.py / report_memory, DeepSpeed's loss_scaler.py, NCCL INFO, Slurm).
#include "diagnose/diagnose.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace lg::diagnose;

TEST_SUITE_BEGIN("diagnose");

TEST_CASE("negatives: benign look-alikes give none")
{
  const Matcher matcher(default_catalogue());
  const char* const lines[] = {
    "[W CUDAAllocatorConfig.h:28] Warning: expandable_segments not supported on this platform (function operator())",
    "[rank0]:[W Utils.hpp:164] Warning: Environment variable NCCL_DESYNC_DEBUG is deprecated; use "
    "TORCH_NCCL_DESYNC_DEBUG instead (function getCvarBool)",
    "UserWarning: PYTORCH_CUDA_ALLOC_CONF is deprecated, use PYTORCH_ALLOC_CONF instead",
    "+ export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
    " iteration      100/  500000 | lm loss: 2.345E+00 | loss scale: 1.0 | grad norm: 0.523 | number of skipped "
    "iterations:  10 | number of nan iterations:   0 |",
    "[Rank 0] (after 10 iterations) memory (MB) | allocated: 31234.5 | max allocated: 51234.2 | reserved: 61234.0 | "
    "max reserved: 62000.0",
    "Theoretical memory footprints: weight and optimizer=45000.00 MB, activation=30000.00 MB, total=75000.00 MB",
    "[2024-07-17 19:44:06,945] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. "
    "Attempted loss scale: 65536, reducing to 32768",
    "  loss_scale ...................................... None",
    "slurmstepd: Exceeded step memory limit at some point.",
    "slurmstepd: error: _is_a_lwp: open() /proc/1234/status failed: No such file or directory",
    "node1:123:456 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
    "node1:123:456 [0] NCCL INFO comm 0x55d4 rank 0 nranks 8 cudaDev 0 busId 1000 - Init COMPLETE",
    "[NeMo W 2025-04-24 00:14:13 ssm:32] The package `megatron.core` was not imported in this environment",
    "Trainer.fit stopped: max_steps reached",
    "INFO colossalai - [3/1000] Forward GPU memory usage: 8367.72 MB, CPU memory usage: 44096.98 MB",
    "Loading checkpoint shards: 100%|##########| 4/4 [00:10<00:00,  2.51s/it]",
    // c10d warns while trying IPv6 first (torch/csrc/distributed/c10d/socket.cpp); harmless
    "[W socket.cpp:436] [c10d] The server socket cannot be initialized on [::]:29500 (errno: 97 - Address family "
    "not supported by protocol).",
    "[W socket.cpp:663] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 - Cannot "
    "assign requested address).",
    "[W socket.cpp:697] [c10d] The IPv6 network addresses of (gpu-node0, 29500) cannot be retrieved (gai error: -2 - "
    "Name or service not known).",
    "[rank0]:[W1201 10:00:00.1 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been destroyed "
    "before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group "
    "to ensure that any pending NCCL operations have finished in this process.",
    // Hugging Face Trainer and Lightning progress with finite losses
    "{'loss': 0.4512, 'grad_norm': 1.234, 'learning_rate': 4.5e-05, 'epoch': 0.12}",
    "Epoch 0:  10%|#         | 100/1000 [00:30<04:30,  3.33it/s, loss=2.31, v_num=0]",
    "node1:123:456 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>",
    "  nan_check_interval .............................. 100",
    "Saving checkpoint to /checkpoints/iter_0001000 (no space left is checked by the writer)",
  };
  for (const char* line : lines) {
    CAPTURE(line);
    const Diagnosis d = diagnose({{"job.out", line}}, matcher);
    CHECK(d.category == "none");
    CHECK(d.evidence.empty());
  }
}

TEST_CASE("negatives: the fragmentation hint inside an OOM message is not evidence of fragmentation")
{
  const Matcher matcher(default_catalogue());
  const std::string text =
    "RuntimeError: CUDA out of memory. Tried to allocate 74.00 MiB (GPU 0; 11.91 GiB total capacity; 10.79 GiB "
    "already allocated; 12.94 MiB free; 11.21 GiB reserved in total by PyTorch) If reserved memory is >> allocated "
    "memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and "
    "PYTORCH_CUDA_ALLOC_CONF";
  CHECK(diagnose({{"job.out", text}}, matcher).category == "cuda_oom_capacity");
}

TEST_CASE("negatives: an exit status without a known cause is unknown with that line as evidence, never none")
{
  // torch/distributed/elastic/multiprocessing/api.py: "failed (exitcode: 1) local_rank: …"
  const Matcher matcher(default_catalogue());
  const Diagnosis d = diagnose({{"job.out", "[2023-09-18 08:19:24,158] torch.distributed.elastic.multiprocessing.api: "
                                            "[ERROR] failed (exitcode: 1) local_rank: 0 (pid: 986) of binary: "
                                            "/usr/bin/python\n"}},
                               matcher);
  CHECK(d.category == "unknown");
  REQUIRE(d.evidence.size() == 1);
  CHECK(d.evidence[0].line == 1);
}

TEST_CASE("negatives: an exception CPython reports as ignored (a destructor at shutdown) is no failure")
{
  // CPython Python/errors.c PyErr_WriteUnraisable; torch's DataLoader iterator __del__
  const Matcher matcher(default_catalogue());
  const std::string ignored = "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f1>\n"
                              "Traceback (most recent call last):\n"
                              "  File \"dataloader.py\", line 1479, in __del__\n"
                              "AttributeError: '_MultiProcessingDataLoaderIter' object has no attribute '_shutdown'\n";
  CHECK(diagnose({{"job.out", ignored}}, matcher).category == "none");
  // With an exit status as well, the job did fail.
  CHECK(diagnose({{"job.out", ignored + "srun: error: n1: task 0: Exited with exit code 1\n"}}, matcher).category ==
        "unknown");
}

TEST_CASE("negatives: an empty log and no logs give none")
{
  const Matcher matcher(default_catalogue());
  CHECK(diagnose({{"empty.out", ""}}, matcher).category == "none");
  CHECK(diagnose({}, matcher).category == "none");
}

TEST_SUITE_END();
