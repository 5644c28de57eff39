#include "estimate/overheads.hpp"

#include <algorithm>

namespace lg::estimate {
namespace {

constexpr double k_mib = 1024.0 * 1024.0;
// CUDA context with lazy module loading on Hopper/Blackwell (~0.5-1 GiB).
constexpr double k_cuda_context = 600 * k_mib;
// NCCL channel buffers per communicator (NCCL_BUFFSIZE 4 MiB x channels x
// send/recv, plus proxy and NVLS state).
constexpr double k_per_communicator = 128 * k_mib;
// cuDNN/cuBLASLt handles and kernels' own scratch outside the caching allocator.
constexpr double k_library_workspace = 128 * k_mib;

} // namespace

double gemm_workspace_bytes(const config::JobSpec& spec)
{
  const bool hopper_on = spec.cluster.gpu_info.generation != config::GpuGeneration::ampere;
  const double workspace = hopper_on ? 32 * k_mib + 1024 : 4 * k_mib;
  double extra = 0;
  if (spec.model.moe && spec.model.moe->grouped_gemm) {
    extra += 4 * workspace;
  }
  if (spec.training.tp_comm_overlap && spec.parallelism.tp > 1) {
    extra += 3 * workspace;
  }
  return k_gemm_workspace_bytes + extra;
}

double dispatcher_buffer_bytes(const config::JobSpec& spec)
{
  const auto& m = spec.model;
  const auto& p = spec.parallelism;
  if (!m.moe || m.moe->token_dispatcher != "allgather" || (p.tp <= 1 && p.ep <= 1)) {
    return 0;
  }
  // Local tokens are s*b/cp (over TP too under SP); the gather spans TP x EP.
  const double local = static_cast<double>(m.seq_length) * spec.training.micro_batch_size /
                       std::max(1, p.cp) / (p.sequence_parallel ? std::max(1, p.tp) : 1);
  return local * std::max(1, p.tp) * std::max(1, p.ep) * m.hidden_size * 2.0;
}

int communicator_count(const config::JobSpec& spec)
{
  const auto& p = spec.parallelism;
  const int dp = config::data_parallel_size(spec);
  int count = 1;  // the default (world) group
  const auto add = [&](int size) { count += size > 1 ? 1 : 0; };
  add(p.tp);
  add(p.pp);
  add(p.pp > 1 ? 2 : 1);  // embedding/position-embedding groups of the first/last stage
  add(dp);
  add(p.cp);
  add(dp * p.cp);  // the distributed optimizer's DP x CP group
  add(p.tp * p.cp);
  if (spec.model.moe) {
    add(p.ep);
    add(config::expert_tensor_parallel_size(spec));
    add(config::expert_data_parallel_size(spec));
  }
  return count;
}

DeviceOverheads device_overheads(const config::JobSpec& spec, double allocated_peak,
                                 bool expandable_segments)
{
  DeviceOverheads out;
  out.cuda_context = k_cuda_context;
  out.nccl_workspace = k_per_communicator * communicator_count(spec);
  out.library_workspace = k_library_workspace;
  if (spec.training.tp_comm_overlap && spec.parallelism.tp > 1) {
    // Userbuffers: a few full-sequence bf16 buffers registered for TP overlap.
    const auto& m = spec.model;
    out.library_workspace += 3.0 * m.seq_length * spec.training.micro_batch_size *
                             m.hidden_size * 2;
  }
  if (!expandable_segments) {
    out.fragmentation = k_fragmentation_fraction * std::max(0.0, allocated_peak);
  }
  return out;
}

} // namespace lg::estimate
