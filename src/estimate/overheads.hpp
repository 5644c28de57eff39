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
