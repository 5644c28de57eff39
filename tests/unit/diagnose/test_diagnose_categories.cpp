// Every failure category from a realistic log excerpt (message formats of
// PyTorch, NCCL, Megatron-LM and Slurm, each cited at its test).
#include "support/default_matcher.hpp"
#include "diagnose/diagnose.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace lg::diagnose;

namespace {

Diagnosis run(const std::string& text, Context context = {})
{
  return diagnose({{"job.out", text}}, lg::testing::default_matcher(), context);
}

} // namespace

TEST_SUITE_BEGIN("diagnose");

TEST_CASE("categories: each category from a realistic excerpt")
{
  struct Case
  {
    const char* category;
    const char* text;
  };
  const Case cases[] = {
    {"cuda_oom_fragmentation",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 35.60 GiB. GPU 0 has a total capacity of "
     "79.33 GiB of which 26.16 GiB is free. Process 76883 has 53.16 GiB memory in use. Of the allocated memory "
     "11.97 GiB is allocated by PyTorch, and 40.69 GiB is reserved by PyTorch but unallocated."},
    {"cuda_oom_capacity",
     "RuntimeError: CUDA out of memory. Tried to allocate 786.00 MiB (GPU 0; 14.73 GiB total capacity; 13.33 GiB "
     "already allocated; 575.88 MiB free; 13.38 GiB reserved in total by PyTorch)"},
    {"cuda_oom_other_process",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 148.00 MiB. GPU 0 has a total capacity of 31.60 "
     "GiB of which 87.44 MiB is free. Process 441650 has 30.51 GiB memory in use. Process 449657 has 1022.00 MiB "
     "memory in use. Of the allocated memory 594.01 MiB is allocated by PyTorch, and 5.99 MiB is reserved by "
     "PyTorch but unallocated."},
    {"cuda_oom_in_nccl", "ng30903:3063028:3066152 [3] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'\n"
                         "ng30903:3063028:3066152 [3] NCCL INFO transport/p2p.cc:204 -> 1"},
    {"cublas_cudnn_alloc_failed",
     "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`"},
    {"host_oom", "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=123.batch. Some of your processes may "
                 "have been killed by the cgroup out-of-memory handler.\nsrun: error: node1: task 4: Out Of Memory"},
    {"nccl_timeout",
     "[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran "
     "for 600020 milliseconds before timing out."},
    {"nccl_error", "kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer "
                   "10.216.210.236<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv)"},
    {"gpu_hardware", "NVRM: Xid (PCI:0000:06:00): 79, GPU has fallen off the bus."},
    {"illegal_memory_access", "torch.AcceleratorError: CUDA error: an illegal memory access was encountered"},
    {"slurm_time_limit",
     "slurmstepd: error: *** JOB 494583 ON gpu12 CANCELLED AT 2024-04-20T09:09:37 DUE TO TIME LIMIT ***"},
    {"slurm_preemption_or_node_failure", "salloc: error: Node failure on worker-1"},
    {"cpu_offload_with_pp",
     "ValueError: Currently there is no support for Pipeline parallelism with CPU offloading"},
    {"nccl_ub_expandable_segments",
     "ValueError: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True is currently not supported with nccl_ub due to "
     "compatibility issue with torch.cuda.MemPool API."},
    {"allocator_config_error", "RuntimeError: !block->expandable_segment_ INTERNAL ASSERT FAILED at "
                               "\"../c10/cuda/CUDACachingAllocator.cpp\":2814, please report a bug to PyTorch."},
    {"loss_nan_divergence", "RuntimeError: Rank 2, node gpu3, device 2, iteration -1: Unexpected result nan "
                            "(message='found NaN in local grad norm for bucket #0 in backward pass')"},
    {"config_error", "AssertionError: Number of layers should be divisible by the pipeline-model-parallel size"},
    {"import_error", "ImportError: cannot import name 'ProcessGroupCollection' from "
                     "'megatron.core.process_groups_config'"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.category);
    const Diagnosis d = run(c.text);
    CHECK(d.category == c.category);
    CHECK_FALSE(d.evidence.empty());
    CHECK_FALSE(d.fix.empty());
    CHECK(d.confidence > 0.0);
    CHECK(d.confidence <= 1.0);
  }
}

TEST_CASE("categories: unknown for an unknown exception or a failed job, else none")
{
  const std::string text = "KeyError: 'decoder.layers.0.weight'\n";
  CHECK(run(text).category == "unknown");  // an exception is a failure
  CHECK(run("iteration 10/ 100 | lm loss: 2.3E+00 |\n").category == "none");
  Context failed;
  failed.slurm_state = "FAILED";
  const Diagnosis d = run("[2024-07-17 19:44:06,829] torchrun: failed (exitcode: 1) local_rank: 0\n", failed);
  CHECK(d.category == "unknown");
  REQUIRE(d.evidence.size() == 1);
  CHECK(d.evidence[0].line == 1);
}

TEST_CASE("categories: evidence names the file and the line")
{
  const Diagnosis d = run("starting\nstep 1\nRuntimeError: CUDA error: an illegal memory access was encountered\n");
  REQUIRE_FALSE(d.evidence.empty());
  CHECK(d.evidence[0].file == "job.out");
  CHECK(d.evidence[0].line == 3);
  CHECK(d.evidence[0].text == "RuntimeError: CUDA error: an illegal memory access was encountered");
  CHECK_FALSE(d.retryable);
}

TEST_CASE("categories: the fix is a job change with a fix id and a retry verdict")
{
  const Diagnosis frag = run(
    "RuntimeError: CUDA out of memory. Tried to allocate 296.00 MiB (GPU 0; 10.76 GiB total capacity; 6.34 GiB "
    "already allocated; 206.56 MiB free; 9.41 GiB reserved in total by PyTorch)");
  CHECK(frag.suggested_change == "expandable_segments");
  CHECK(frag.retryable);
  CHECK(frag.fix.find("expandable_segments:True") != std::string::npos);
  const Diagnosis cfg = run("pretrain_gpt.py: error: unrecognized arguments: --DDP-impl local");
  CHECK(cfg.category == "config_error");
  CHECK_FALSE(cfg.retryable);
  CHECK(cfg.suggested_change.empty());
}

TEST_CASE("categories: the Slurm state alone is a cause")
{
  Context context;
  context.slurm_state = "OUT_OF_MEMORY";
  const Diagnosis d = run("iteration 10/ 100 | lm loss: 2.3E+00 |\n", context);
  CHECK(d.category == "host_oom");
  REQUIRE(d.evidence.size() == 1);
  CHECK(d.evidence[0].text == "job state OUT_OF_MEMORY");
  context.slurm_state = "TIMEOUT";
  CHECK(run("", context).category == "slurm_time_limit");
  context.slurm_state = "NODE_FAIL";
  CHECK(run("", context).category == "slurm_preemption_or_node_failure");
}

TEST_SUITE_END();
