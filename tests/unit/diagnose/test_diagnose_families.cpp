// One case per message family of the catalogue, each written in the format of
// the upstream code that prints it (named in `source`), not copied from a
// labelled excerpt.
#include "support/default_matcher.hpp"
#include "diagnose/diagnose.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace lg::diagnose;

namespace {

struct Case
{
  const char* category;
  const char* source;  // where the message comes from upstream
  const char* text;
};

void check_all(const Case* begin, const Case* end)
{
  for (const Case* c = begin; c != end; ++c) {
    const std::string source = c->source;
    const std::string text = c->text;
    const std::string expected = c->category;
    CAPTURE(source);
    CAPTURE(text);
    const Diagnosis d = diagnose({{"job.out", text}}, lg::testing::default_matcher());
    CHECK(d.category == expected);
    CHECK_FALSE(d.fix.empty());
    CHECK_FALSE(d.evidence.empty());
  }
}

} // namespace

TEST_SUITE_BEGIN("diagnose");

TEST_CASE("families: host memory (kernel OOM killer, DataLoader workers)")
{
  const Case cases[] = {
    {"host_oom", "Linux mm/oom_kill.c before 4.19: \"%s: Kill process %d (%s) score %u or sacrifice child\"",
     "[11686.043641] Out of memory: Kill process 2603 (python) score 761 or sacrifice child\n"
     "[11686.043647] Killed process 2603 (python) total-vm:1498536kB, anon-rss:721784kB, file-rss:4228kB"},
    {"host_oom", "Linux mm/oom_kill.c since 4.19: \"Out of memory: Killed process %d (%s) total-vm:%lukB, anon-rss:\"",
     "Jun 10 03:12:45 gpu-node7 kernel: Out of memory: Killed process 48211 (pt_main_thread) total-vm:912345678kB, "
     "anon-rss:498765432kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:1234kB oom_score_adj:0"},
    {"host_oom", "Linux mm/oom_kill.c dump_header: \"%s invoked oom-killer: gfp_mask=%#x(%pGg), order=%d\"",
     "[ 9321.12] python3 invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0"},
    {"host_oom", "PyTorch torch/utils/data/_utils/signal_handling.py: \"DataLoader worker (pid {}) is killed by signal: {}\"",
     "RuntimeError: DataLoader worker (pid 83641) is killed by signal: Killed."},
    {"shm_exhausted", "PyTorch torch/utils/data/dataloader.py / signal_handling.py, SIGBUS in a worker",
     "RuntimeError: DataLoader worker (pid 9833) is killed by signal: Bus error. It is possible that dataloader's "
     "workers are out of shared memory. Please try to raise your shared memory limit."},
    {"shm_exhausted", "PyTorch torch/csrc/DataLoader.cpp SIGBUS handler",
     "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."},
    {"shm_exhausted", "PyTorch torch/lib/libshm (THManagedMapAllocator): \"unable to write to file <%s>\"",
     "RuntimeError: unable to write to file </torch_4137_2875443406_0>: No space left on device (28)"},
  };
  check_all(std::begin(cases), std::end(cases));
}

TEST_CASE("families: a worker killed by SIGKILL beside the generic shm guess is host memory")
{
  // torch prints the shm hint whenever a worker dies; the signal decides.
  const Diagnosis d = diagnose({{"job.out", "ERROR: Unexpected bus error encountered in worker. This might be caused "
                                            "by insufficient shared memory (shm).\nRuntimeError: DataLoader worker "
                                            "(pid 50440) is killed by signal: Killed.\n"}},
                               lg::testing::default_matcher());
  CHECK(d.category == "host_oom");
}

TEST_CASE("families: NCCL WARN errors and the watchdog")
{
  const Case cases[] = {
    {"nccl_error", "NVIDIA/nccl src/enqueue.cc / src/graph/tuning.cc: WARN(\"Error : no algorithm/protocol available\")",
     "node3:1234:1300 [2] NCCL WARN Error : no algorithm/protocol available for function AllGather with datatype "
     "ncclInt8. NCCL_ALGO was set to NVLS."},
    {"nccl_error", "NVIDIA/nccl src/misc/ibvwrap.cc: \"Call to ibv_reg_mr failed with error %s\"",
     "gpu12:5521:5690 [0] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory"},
    {"nccl_error", "NVIDIA/nccl src/include/checks.h CUDACHECK: WARN(\"Cuda failure %d '%s'\")",
     "gpu12:5521:5690 [3] include/alloc.h:125 NCCL WARN Cuda failure 1 'invalid argument'"},
    {"nccl_error", "NVIDIA/nccl src/include/checks.h (older): WARN(\"Cuda failure '%s'\")",
     "gpu12:5521:5690 [3] enqueue.cc:1133 NCCL WARN Cuda failure 'invalid argument'"},
    {"nccl_error", "PyTorch torch/csrc/distributed/c10d/NCCLUtils.hpp C10D_NCCL_CHECK: \"NCCL error in: %s:%d, %s\"",
     "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
     "invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.20.5"},
    {"nccl_timeout", "PyTorch ProcessGroupNCCL.cpp: \"Watchdog caught collective operation timeout\" inside the abort "
                     "message",
     "[rank3]: RuntimeError: NCCL communicator was aborted on rank 3. Original reason for failure was: [Rank 3] "
     "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=96120, OpType=ALLREDUCE, Timeout(ms)=1800000) "
     "ran for 1800525 milliseconds before timing out."},
    {"nccl_timeout", "PyTorch ProcessGroupNCCL.cpp: \"Some NCCL operations have failed or timed out\" then the timeout",
     "[rank6]:[E624 04:14:29.224 ProcessGroupNCCL.cpp:684] [Rank 6] Some NCCL operations have failed or timed out. "
     "Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete "
     "data.\n"
     "[rank6]:[E624 04:14:29.225 ProcessGroupNCCL.cpp:616] [Rank 6] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600020 "
     "milliseconds before timing out."},
    {"nccl_timeout", "PyTorch ProcessGroupNCCL.cpp heartbeatMonitor: \"Heartbeat monitor timed out! Process will be "
                     "terminated after dumping debug info.\"",
     "[rank0]:[E1201 10:00:00.1 ProcessGroupNCCL.cpp:1415] [PG ID 0 PG GUID 0(default_pg) Rank 0] Heartbeat monitor "
     "timed out! Process will be terminated after dumping debug info. workMetaList_.size()=2\n"
     "[rank0]:[F1201 10:00:00.2 ProcessGroupNCCL.cpp:1249] [PG ID 0 PG GUID 0(default_pg) Rank 0] [PG ID 0 PG GUID "
     "0(default_pg) Rank 0] Terminating the process after attempting to dump debug info, due to ProcessGroupNCCL "
     "watchdog hang."},
    {"nccl_error", "NVSHMEM src/host/init/init.cu nvshmemi_check_state_and_init (DeepEP issue #223's log)",
     "/sgl-workspace/nvshmem/src/host/init/init.cu:nvshmemi_check_state_and_init:1080: nvshmem initialization failed, "
     "exiting"},
    {"nccl_error", "NVSHMEM src/host/transport/transport.cpp nvshmemi_transport_init (DeepEP issue #128's log)",
     "/sgl-workspace/nvshmem/src/host/transport/transport.cpp:nvshmemi_transport_init:275: init failed for transport: "
     "IBGDA"},
    {"nccl_timeout", "DeepEP csrc/kernels/legacy/internode.cu dispatch receiver (printf format)",
     "DeepEP dispatch NVL receiver timeout, channel: 0, RDMA: 0, nvl: 7, src RDMA: 1, src nvl: 1, start: 0, end: 0"},
    {"nccl_timeout", "DeepEP csrc/kernels/legacy/internode.cu combine forwarder (printf format)",
     "DeepEP combine forwarder (RDMA check) timeout, channel: 3, RDMA: 1, nvl: 2, dst RDMA: 0, head: 12, tail: 12"},
    {"nccl_timeout", "DeepEP csrc/kernels/legacy/intranode.cu (printf format)",
     "DeepEP timeout for dispatch receivers, rank 5, responsible_channel = 2, tokens remained: 17"},
    {"nccl_timeout", "DeepEP csrc/legacy/buffer.hpp (std::runtime_error)",
     "[rank3]: RuntimeError: DeepEP error: timeout (dispatch CPU)"},
    {"nccl_timeout", "PyTorch ProcessGroupNCCL.cpp heartbeatMonitor exit message",
     "ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued "
     "collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking the watchdog"},
  };
  check_all(std::begin(cases), std::end(cases));
}

TEST_CASE("families: rendezvous and the c10d store")
{
  const Case cases[] = {
    {"rendezvous_error", "PyTorch torch/csrc/distributed/c10d/socket.cpp throwTimeoutError: \"The client socket has "
                         "timed out after {} while trying to connect to ({}, {}).\"",
     "torch.distributed.DistNetworkError: The client socket has timed out after 600000ms while trying to connect to "
     "(10.0.0.12, 29500)."},
    {"rendezvous_error", "PyTorch torch/csrc/distributed/c10d/TCPStore.cpp: \"Timed out after {} seconds waiting for "
                         "clients. {}/{} clients joined.\"",
     "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined."},
    {"rendezvous_error", "PyTorch torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py",
     "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has "
     "failed. See inner exception for details."},
    {"rendezvous_error", "PyTorch torch/distributed/rendezvous.py _env_error",
     "ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable MASTER_ADDR "
     "expected, but not set"},
    {"rendezvous_error", "PyTorch c10d socket.cpp connect retries with errno 111 (no later success in the log)",
     "[W socket.cpp:601] [c10d] The client socket has failed to connect to [gpu-node000]:29500 (errno: 111 - "
     "Connection refused)."},
    {"port_in_use", "PyTorch c10d socket.cpp: \"The server socket has failed to bind to {} (errno: {} - {}).\"",
     "[W socket.cpp:426] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in "
     "use).\n[E socket.cpp:462] [c10d] The server socket has failed to listen on any local network address."},
    {"port_in_use", "CPython OSError for EADDRINUSE",
     "OSError: [Errno 98] Address already in use"},
    {"port_in_use", "PyTorch c10d DistNetworkError with the errno name",
     "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
     "port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use"},
  };
  check_all(std::begin(cases), std::end(cases));
}

TEST_CASE("families: set-up mistakes are configuration errors")
{
  const Case cases[] = {
    {"config_error", "PyTorch c10/cuda/CUDAException.cpp for cudaErrorInvalidDevice",
     "RuntimeError: CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously reported at some "
     "other API call, so the stacktrace below might be incorrect."},
    {"config_error", "PyTorch torch/cuda/__init__.py _lazy_init", "RuntimeError: No CUDA GPUs are available"},
    {"import_error", "CPython AttributeError for a symbol a package version lacks",
     "AttributeError: module 'megatron.core.fusions.fused_bias_geglu' has no attribute 'quick_gelu'"},
  };
  check_all(std::begin(cases), std::end(cases));
}

TEST_CASE("families: native crashes, device-side asserts, disks")
{
  const Case cases[] = {
    {"segfault", "PyTorch torch/distributed/elastic/multiprocessing/errors ChildFailedError block",
     "[0]:\n  time      : 2024-03-01_10:00:00\n  host      : gpu-node3\n  rank      : 5 (local_rank: 5)\n"
     "  exitcode  : -11 (pid: 4242)\n  error_file: <N/A>\n  traceback : Signal 11 (SIGSEGV) received by PID 4242"},
    {"segfault", "CPython Modules/faulthandler.c", "Fatal Python error: Segmentation fault\n\nThread 0x00007f (most "
                                                  "recent call first):"},
    {"segfault", "bash job control message for a child killed by SIGSEGV",
     "/var/spool/slurmd/job123/slurm_script: line 20: 4711 Segmentation fault      (core dumped) python train.py"},
    {"segfault", "Slurm src/srun/launch.c task status with strsignal(SIGSEGV)",
     "srun: error: gpu-node2: task 3: Segmentation fault"},
    {"segfault", "PyTorch torch/multiprocessing/spawn.py ProcessExitedException",
     "torch.multiprocessing.spawn.ProcessExitedException: process 3 terminated with signal SIGSEGV"},
    {"segfault", "a shell or container runtime reporting 128 + SIGSEGV", "Error: container exited with code 139"},
    {"segfault", "UCX src/ucs/debug/debug.c error signal handler",
     "[gpu-node2:4711:0:4711] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x8)"},
    {"device_assert", "PyTorch aten/src/ATen/native/cuda/Indexing.cu CUDA_KERNEL_ASSERT(srcIndex < srcSelectDimSize)",
     "../aten/src/ATen/native/cuda/Indexing.cu:1289: indexSelectLargeIndex: block: [214,0,0], thread: [96,0,0] "
     "Assertion `srcIndex < srcSelectDimSize` failed.\nRuntimeError: CUDA error: device-side assert triggered"},
    {"device_assert", "PyTorch aten/src/ATen/native/cuda/Loss.cu nll_loss_forward_reduce_cuda_kernel_2d",
     "/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
     "thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed."},
    {"device_assert", "PyTorch c10/cuda/CUDAException.cpp for cudaErrorAssert",
     "torch.AcceleratorError: CUDA error: device-side assert triggered\nCompile with `TORCH_USE_CUDA_DSA` to enable "
     "device-side assertions."},
    {"disk_full_or_quota", "PyTorch caffe2/serialize/inline_container.cc writer on ENOSPC",
     "RuntimeError: [enforce fail at inline_container.cc:595] . PytorchStreamWriter failed writing file data/12: "
     "file write failed"},
    {"disk_full_or_quota", "CPython OSError for ENOSPC", "OSError: [Errno 28] No space left on device"},
    {"disk_full_or_quota", "CPython OSError for EDQUOT",
     "OSError: [Errno 122] Disk quota exceeded: '/lustre/ckpt/iter_0002000/mp_rank_00/model_optim_rng.pt'"},
  };
  check_all(std::begin(cases), std::end(cases));
}

TEST_CASE("families: divergence printed by trainers other than Megatron")
{
  const Case cases[] = {
    {"loss_nan_divergence", "Hugging Face transformers Trainer.log (a dict per logging step)",
     "{'loss': nan, 'grad_norm': nan, 'learning_rate': 1.8e-05, 'epoch': 0.45}"},
    {"loss_nan_divergence", "Lightning progress bar postfix", "Epoch 3:  41%|####      | 410/1000 [02:01<02:54, "
                                                              "3.38it/s, v_num=12, train_loss=nan]"},
    {"loss_nan_divergence", "torchvision references/classification/train.py",
     "Loss is nan, stopping training"},
    {"loss_nan_divergence", "pytorch/examples mnist/main.py train loop print",
     "Train Epoch: 3 [1280/60000 (2%)]\tLoss: nan"},
    {"loss_nan_divergence", "fairseq fairseq/trainer.py / nan_detector",
     "FloatingPointError: Minimum loss scale reached (0.0001). Your loss is probably exploding. Try lowering the "
     "learning rate, using gradient clipping or increasing the batch size."},
    {"loss_nan_divergence", "PyTorch autograd anomaly mode (torch/csrc/autograd/python_anomaly_mode.cpp)",
     "RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th output."},
  };
  check_all(std::begin(cases), std::end(cases));
}

TEST_CASE("families: a GPU lost or not probed, and the scheduler's node failure and preemption")
{
  const Case cases[] = {
    {"gpu_hardware", "NVIDIA open-gpu-kernel-modules: RmInitAdapter failure in the kernel log",
     "NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x26:0xffff:1281)"},
    {"gpu_hardware", "NVIDIA driver nv.c probe", "NVRM: The NVIDIA probe routine failed for 1 device(s)."},
    {"gpu_hardware", "nvidia-smi when NVML lost the device",
     "Unable to determine the device handle for GPU0000:86:00.0: Unknown Error"},
    {"gpu_hardware", "nvidia-smi for a GPU marked lost",
     "Unable to determine the device handle for GPU 0000:3B:00.0: GPU is lost.  Reboot the system to recover this "
     "GPU"},
    {"gpu_hardware", "NVIDIA Xid catalogue: Xid 48 double-bit ECC",
     "Jun  1 12:00:00 gpu-node4 kernel: NVRM: Xid (PCI:0000:3b:00): 48, pid=1234, name=python, An uncorrectable "
     "double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0."},
    {"slurm_preemption_or_node_failure", "Slurm src/slurmd/slurmstepd/req.c",
     "slurmstepd: error: *** JOB 1234 ON gpu-node4 CANCELLED AT 2024-05-01T10:00:00 DUE TO NODE FAILURE, SEE "
     "SLURMCTLD LOG FOR DETAILS ***"},
    {"slurm_preemption_or_node_failure", "Slurm src/api/step_launch.c",
     "srun: error: Task launch for StepId=1234.0 failed on node gpu-node4: Communication connection failure"},
    {"slurm_preemption_or_node_failure", "Slurm salloc/srun when the allocation is revoked",
     "srun: Job allocation 1234 has been revoked."},
    {"slurm_preemption_or_node_failure", "Slurm sacct State and ExitCode columns",
     "1234.0           python  NODE_FAIL      1:0"},
    {"host_oom", "Slurm scontrol show job", "   JobState=OUT_OF_MEMORY Reason=OutOfMemory Dependency=(null)"},
    {"host_oom", "Kubernetes pod status (kubectl describe pod)", "      Reason:       OOMKilled"},
    {"config_error", "Slurm src/sbatch/sbatch.c",
     "sbatch: error: Batch job submission failed: Requested node configuration is not available"},
  };
  check_all(std::begin(cases), std::end(cases));
}

TEST_CASE("families: the launched program, script or module is not there")
{
  // Each with a torchrun/srun consequence after it, as a real launch prints.
  const char* exit_line = "\nsrun: error: node1: task 0: Exited with exit code 2\n";
  const Case cases[] = {
    {"config_error", "CPython Modules/main.c pymain_run_file_obj: \"%ls: can't open file %R: [Errno %d] %s\"",
     "/usr/bin/python3: can't open file '/workspace/megatron/pretrain_gpt.py': [Errno 2] No such file or directory"},
    {"config_error", "CPython 2.7 Modules/main.c: \"%s: can't open file '%.200s': [Errno %d] %s\"",
     "python: can't open file 'train.py': [Errno 13] Permission denied"},
    {"config_error", "Slurm src/slurmd/slurmstepd/task.c _exec_task: \"execve(): %s: %m\"",
     "slurmstepd: error: execve(): torchrun: No such file or directory"},
    {"config_error", "Slurm task.c _exec_task: \"execve(): bad interpreter(%s): %m\" (a #! line ending in CR)",
     "slurmstepd: error: execve(): bad interpreter(/bin/bash\r): No such file or directory"},
    {"config_error", "bash execute_cmd.c: \"%s: command not found\", with \"line N: \" in a script",
     "/var/spool/slurmd/job01234/slurm_script: line 27: torchrun: command not found"},
    {"config_error", "bash, interactive form", "bash: deepspeed: command not found"},
    {"config_error", "bash shell.c / execute_cmd.c file_error: \"%s: %s\" (strerror)",
     "/bin/bash: ./scripts/pretrain_llama.sh: No such file or directory"},
    {"config_error", "dash (Debian /bin/sh) \"%s: %d: %s: not found\"", "/bin/sh: 1: torchrun: not found"},
    {"config_error", "CPython Objects/exceptions.c: OSError for ENOENT is FileNotFoundError, \"[Errno %d] %s: %R\"",
     "FileNotFoundError: [Errno 2] No such file or directory: '/data/tokenizer/gpt2-vocab.json'"},
    {"import_error", "CPython Lib/runpy.py _run_module_as_main: \"%s: %s\" % (sys.executable, msg)",
     "/usr/bin/python3: No module named megatron.training"},
    {"import_error", "CPython import.c: \"No module named %R\" as ModuleNotFoundError",
     "ModuleNotFoundError: No module named 'transformer_engine'"},
    {"import_error", "CPython import.c: \"cannot import name %R from %R\"",
     "ImportError: cannot import name 'get_te_version' from 'megatron.core.utils' (/opt/megatron/core/utils.py)"},
  };
  for (const Case& c : cases) {
    const std::string source = c.source;
    const std::string text = std::string(c.text) + exit_line;
    CAPTURE(source);
    CAPTURE(text);
    const Diagnosis d = diagnose({{"job.out", text}}, lg::testing::default_matcher(), {"FAILED", std::nullopt});
    CHECK(d.category == c.category);
    CHECK_FALSE(d.retryable);
    REQUIRE_FALSE(d.evidence.empty());
    CHECK(d.evidence.front().text == c.text);
  }
  // The fix is about the launch path, not a module or the job's settings.
  const Diagnosis missing = diagnose({{"job.out", "slurmstepd: error: execve(): torchrun: No such file or directory"}},
                                     lg::testing::default_matcher());
  CHECK(missing.fix.find("workdir") != std::string::npos);
  CHECK(missing.fix.find("retry cannot help") != std::string::npos);
  // A shell message that is not about a missing command is not this family,
  // nor a site profile's missing `module` command in a job that trains on.
  const Diagnosis fine = diagnose({{"job.out", "echo 'torchrun: command not found' is what the docs warn about; "
                                               "training goes on\n"}},
                                  lg::testing::default_matcher());
  CHECK(fine.signature != "launch-program-not-found");
  const Diagnosis profile = diagnose(
    {{"job.out", "/var/spool/slurmd/job77/slurm_script: line 4: module: command not found\n"
                 " [2026-01-01 10:00:00] iteration       10/    1000 | consumed samples:          320 | "
                 "elapsed time per iteration (ms): 812.4 | lm loss: 9.8E+00 |\n"}},
    lg::testing::default_matcher());
  CHECK(profile.category == "none");
}

TEST_CASE("families: a cuBLAS handle that cannot be created, a launcher's negative return code, NCCL net plugins")
{
  const Case cases[] = {
    {"cublas_cudnn_alloc_failed", "PyTorch aten/src/ATen/cuda/CublasHandlePool.cpp TORCH_CUDABLAS_CHECK(cublasCreate)",
     "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`"},
    {"host_oom",
     "DeepSpeed deepspeed/launcher/launch.py sigkill_handler: \"{cmd} exits with return code = {returncode}\"",
     "[ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_rank=7'] exits with "
     "return code = -9"},
    {"host_oom", "CPython Lib/subprocess.py CalledProcessError: \"Command '%s' died with %r.\"",
     "subprocess.CalledProcessError: Command '['python', 'train.py']' died with <Signals.SIGKILL: 9>."},
    {"segfault", "DeepSpeed deepspeed/launcher/launch.py sigkill_handler, SIGSEGV",
     "[ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_rank=0'] exits with "
     "return code = -11"},
    {"nccl_error",
     "NCCL net plugins report as NET/<plugin name> (src/transport/net_ib.cc's \"NET/IB : Got completion "
     "from peer %s with status=%d\")",
     "NET/IBP:Got completion from peer 10.0.0.7<36315> with status=12 opcode=32698 len=32696 vendor err 129 (Send)"},
  };
  check_all(std::begin(cases), std::end(cases));
}

TEST_CASE("families: a checkpoint that does not fit the model, a container image or driver that does not fit, a refused step")
{
  const Case cases[] = {
    {"config_error", "PyTorch torch/nn/modules/module.py load_state_dict: \"Error(s) in loading state_dict for {}:\"",
     "RuntimeError: Error(s) in loading state_dict for GPTModel:\n\tsize mismatch for embedding.weight: copying a "
     "param with shape torch.Size([50304, 4096]) from checkpoint, the shape in current model is "
     "torch.Size([32000, 4096])."},
    {"config_error", "NVIDIA/pyxis pyxis_slurmstepd.c: slurm_error(\"pyxis: failed to import docker image\")",
     "slurmstepd: error: pyxis: failed to import docker image\nsrun: error: node7: task 0: Exited with exit code 1"},
    {"import_error", "CUDA runtime cudaErrorInsufficientDriver (35), cudaGetErrorString",
     "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version"},
    {"import_error", "PyTorch c10/cuda/CUDAFunctions.cpp: \"The NVIDIA driver on your system is too old (found version %d)\"",
     "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver."},
    {"import_error", "TransformerEngine transformer_engine/common/util/logging.h NVTE_CHECK_CUDNN_FE: \"%s:%d in "
                     "function %s: cuDNN Error: %s\" with cudnn_frontend's message",
     "RuntimeError: /opt/te/transformer_engine/common/fused_attn/fused_attn_f16_arbitrary_seqlen.cu:1068 in function "
     "fused_attn_arbitrary_seqlen_bwd_impl: cuDNN Error: [cudnn_frontend] Error: No execution plans support the graph."},
    {"config_error", "Slurm src/srun/launch.c: \"Unable to create step for job %u: %m\"",
     "srun: error: Unable to create step for job 123456: Memory required by task is not available"},
  };
  check_all(std::begin(cases), std::end(cases));
  // A step refused because the job is already ending is a consequence, not this.
  const Diagnosis ending = diagnose(
    {{"job.out", "srun: error: Unable to create step for job 7: Job/step already completing or completed\n"}},
    lg::testing::default_matcher());
  CHECK(ending.signature != "slurm-request-refused");
}

TEST_CASE("families: each new category has a fix and says whether a retry can help")
{
  const Catalogue catalogue = default_catalogue();
  for (const char* category : {"segfault", "device_assert", "rendezvous_error", "port_in_use", "disk_full_or_quota",
                               "shm_exhausted", "hang_no_progress"}) {
    CAPTURE(category);
    REQUIRE(catalogue.categories.count(category) == 1);
    CHECK(catalogue.categories.at(category).fix.size() > 80);
  }
  CHECK(catalogue.categories.at("rendezvous_error").retryable);
  CHECK_FALSE(catalogue.categories.at("port_in_use").retryable);
  CHECK(is_same_or_refines(catalogue, "port_in_use", "config_error"));
  CHECK(is_same_or_refines(catalogue, "shm_exhausted", "host_oom"));
  CHECK_FALSE(is_same_or_refines(catalogue, "config_error", "port_in_use"));
}

TEST_SUITE_END();
