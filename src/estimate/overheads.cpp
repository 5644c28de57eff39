#include "estimate/overheads.hpp"

#include <algorithm>
#include <array>
#include <cmath>

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

namespace {

// One DeepEP Config: the NVLink chunk it receives per channel and peer, and
// the RDMA chunks it sends and receives (deep_ep/buffers/legacy.py).
struct DeepEpConfig
{
  int ranks;
  int nvl_recv;
  int rdma_send_dispatch;
  int rdma_send_combine;
  int rdma_recv;
};

// get_dispatch_config / get_combine_config: the NVLink receive chunk and the
// RDMA receive chunk (128) are the same in both maps; the RDMA send chunk
// differs, and the Config constructor aligns the receive chunk up to it.
constexpr std::array<DeepEpConfig, 12> k_deepep_configs = {{
  {2, 256, 6, 6, 128},    {4, 256, 6, 6, 128},    {8, 256, 6, 6, 128},    {16, 288, 20, 12, 128},
  {24, 288, 8, 8, 128},   {32, 288, 8, 8, 128},   {48, 288, 8, 8, 128},   {64, 288, 8, 8, 128},
  {96, 480, 12, 8, 128},  {128, 560, 12, 8, 128}, {144, 720, 12, 8, 128}, {160, 720, 12, 8, 128},
}};

double align_up(double value, double step)
{
  return std::ceil(value / step) * step;
}

} // namespace

double deepep_buffer_bytes(const config::JobSpec& spec)
{
  const auto& m = spec.model;
  if (!m.moe || !config::runs_deepep(*m.moe)) {
    return 0;
  }
  const int ranks = std::max(1, spec.parallelism.ep) * std::max(1, config::expert_tensor_parallel_size(spec));
  if (ranks <= 1) {
    return 0;
  }
  // A group size DeepEP has no config for fails its assert at the first
  // dispatch; the next larger config (or the largest) stands in for it.
  const DeepEpConfig* c = &k_deepep_configs.back();
  for (const auto& candidate : k_deepep_configs) {
    if (candidate.ranks >= ranks) {
      c = &candidate;
      break;
    }
  }
  constexpr double max_nvl_peers = 8;  // LEGACY_NUM_MAX_NVL_PEERS
  constexpr double max_topk = 128;     // kNumMaxTopK
  constexpr double max_scales = 128;   // kNumMaxScales
  constexpr double source_meta = 8;    // sizeof(SourceMeta): two ints
  constexpr double topk_idx = 8;       // topk_idx_t: int64
  const double sms = m.moe->deepep_num_sms > 0 ? m.moe->deepep_num_sms : 20;  // Buffer.num_sms
  const double channels = std::floor(sms / 2);
  const double hidden_bytes = m.hidden_size * 2.0;  // get_hidden_bytes: h x max(element size, 2)
  const double per_token = hidden_bytes + source_meta + max_topk * (topk_idx + 4) + max_scales * 4;
  const double n = ranks;
  const double rdma_ranks = std::max(std::floor(n / max_nvl_peers), 1.0);
  const double nvl_ranks = std::min(n, max_nvl_peers);
  double nvl = channels * nvl_ranks * (2 * rdma_ranks + 3) * 4 + channels * nvl_ranks * c->nvl_recv * per_token;
  nvl = align_up(nvl, 128);
  double rdma = 0;
  if (n > max_nvl_peers) {
    const double recv = std::max(align_up(c->rdma_recv, c->rdma_send_dispatch), align_up(c->rdma_recv, c->rdma_send_combine));
    rdma = channels * rdma_ranks * (max_nvl_peers * 2 + 2) * 2 * 4 + channels * rdma_ranks * recv * (per_token + 16) * 2;
    rdma = align_up(rdma, 128);
  }
  return nvl + rdma;
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
