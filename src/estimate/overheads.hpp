// What the caching allocator does not report but the device holds: the CUDA
// context, NCCL communicator buffers, library workspaces, and a fragmentation
// allowance when expandable segments are off.
#pragma once

#include "config/job_spec.hpp"

namespace lg::estimate {

struct DeviceOverheads
{
  double cuda_context = 0;
  double nccl_workspace = 0;
  double library_workspace = 0;
  double fragmentation = 0;

  double total() const { return cuda_context + nccl_workspace + library_workspace + fragmentation; }
};

// cuBLAS/cuBLASLt and Transformer Engine GEMM workspaces that PyTorch's
// caching allocator hands out (so max_memory_allocated counts them): ~32 MiB
// each for PyTorch's handle, TE's main stream and TE's split-K streams.
inline constexpr double k_gemm_workspace_bytes = 96.0 * 1024 * 1024;

// Return the persistent GEMM workspaces of one GPU of `spec`: the base ones
// above plus Transformer Engine's extra ones, each torch.empty'd once and
// cached (transformer_engine/pytorch/cpp_extensions/gemm.py
// get_cublas_workspace, lru_cache): one per compute stream for grouped GEMMs
// (MoE experts; get_num_cublas_streams() = 4, common/util/multi_stream.cpp)
// and _NUM_MAX_UB_STREAMS = 3 for the userbuffers GEMMs of TP communication
// overlap, get_cublas_workspace_size_bytes() each: 32 MiB + 1 KiB from Hopper
// on, 4 MiB before.
double gemm_workspace_bytes(const config::JobSpec& spec);

// Return the MoE token dispatcher's persistent buffer on one GPU: the
// allgather dispatcher gathers the hidden states of the TP x EP group into
// Megatron's global memory buffer (core/transformer/moe/token_dispatcher.py
// token_dispatch: gather_from_sequence_parallel_region(...,
// use_global_buffer=True); core/utils.py GlobalMemoryBuffer keeps it), 16-bit
// [s*b/cp (/tp under SP) x tp x ep, h]. 0 for other dispatchers, for dense
// models, and when TP and EP are both 1 (no gather).
double dispatcher_buffer_bytes(const config::JobSpec& spec);

// Return DeepEP's communication buffers on one GPU under the flex dispatcher
// with its deepep backend (0 otherwise): Megatron-LM
// core/transformer/moe/fused_a2a.py get_buffer sizes one deep_ep.Buffer for
// the expert TP x EP group by the larger of the dispatch and combine configs'
// size hints (DeepEP deep_ep/buffers/legacy.py get_dispatch_config /
// get_combine_config, csrc/legacy/config.hpp get_nvl_buffer_size_hint /
// get_rdma_buffer_size_hint, hidden bytes = h x 2). Both are allocated outside
// PyTorch's caching allocator (cudaMalloc for NVLink, NVSHMEM for RDMA).
double deepep_buffer_bytes(const config::JobSpec& spec);

// Fraction of the allocated peak reserved as fragmentation when expandable
// segments are off (the caching allocator's split blocks and rounding).
inline constexpr double k_fragmentation_fraction = 0.10;

// Return the device-side overheads of one GPU of `spec` at an allocated peak
// of `allocated_peak` bytes.
DeviceOverheads device_overheads(const config::JobSpec& spec, double allocated_peak,
                                 bool expandable_segments);

// Return the number of distinct NCCL communicators (groups larger than one
// rank) a rank of `spec` joins.
int communicator_count(const config::JobSpec& spec);

} // namespace lg::estimate
