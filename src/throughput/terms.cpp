#include "throughput/terms.hpp"

#include <algorithm>
#include <cmath>

namespace lg::throughput {

double gemm_seconds(double m, double n, double k, double in_bytes, double flops_rate,
                    double hbm_rate)
{
  if (m <= 0 || n <= 0 || k <= 0) {
    return 0;
  }
  const double compute = flops_rate > 0 ? 2 * m * n * k / flops_rate : 0;
  const double traffic = (m * k + k * n) * in_bytes + m * n * 2;
  return compute + (hbm_rate > 0 ? traffic / hbm_rate : 0);
}

double shape_efficiency(double m, double n, double k)
{
  if (m <= 0 || n <= 0 || k <= 0) {
    return 1;
  }
  const double tiles = std::ceil(m / k_tile_m) * std::ceil(n / k_tile_n);
  return m * n / (tiles * k_tile_m * k_tile_n) * k / (k + k_fill);
}

double ring_seconds(double bytes, int group, double bw)
{
  if (group <= 1 || bw <= 0) {
    return 0;
  }
  return (group - 1.0) / group * bytes / bw;
}

double all_to_all_seconds(double bytes, int group, int local, double fast_bw, double slow_bw)
{
  if (group <= 1) {
    return 0;
  }
  local = std::clamp(local, 1, group);
  const double share = bytes / group;
  const double fast = fast_bw > 0 ? share * (local - 1) / fast_bw : 0;
  const double slow = slow_bw > 0 ? share * (group - local) / slow_bw : 0;
  return std::max(fast, slow);  // the two links carry their shares at the same time
}

double node_dedup_factor(int domains, double topk)
{
  if (domains <= 1 || topk <= 1) {
    return 1;
  }
  const double n = domains;
  return n * (1 - std::pow(1 - 1 / n, topk)) / topk;
}

double exposed_seconds(double comm, double window, double eff, bool overlapped)
{
  if (comm <= 0) {
    return 0;
  }
  if (!overlapped) {
    return comm;
  }
  return std::max((1 - eff) * comm, comm - eff * std::max(0.0, window));
}

double tp_block_seconds(double collective, double column, double row, double eff, bool sp,
                        bool tp_comm_overlap, bool wgrad)
{
  if (collective <= 0) {
    return 0;
  }
  const double wgrad_window = wgrad ? column : 0;
  if (!sp) {
    return 2 * collective + exposed_seconds(2 * collective, wgrad_window, eff, true);
  }
  const double forward = exposed_seconds(collective, column, eff, tp_comm_overlap)
                         + exposed_seconds(collective, row, eff, tp_comm_overlap);
  const double backward = exposed_seconds(collective, row, eff, tp_comm_overlap)
                          + exposed_seconds(collective, column, eff, true)
                          + exposed_seconds(collective, wgrad_window, eff, true);
  return forward + backward;
}

double launch_seconds(double gpu, double kernels, double gap, double host)
{
  if (kernels <= 0) {
    return 0;
  }
  const double device = kernels * gap;
  return std::max(device, kernels * host - gpu);
}

double expert_gemm_kernels(double local_experts)
{
  return 2 * std::max(1.0, local_experts);
}

double bubble_seconds(int pp, int vpp, double microbatch_seconds)
{
  if (pp <= 1) {
    return 0;
  }
  return (pp - 1.0) / std::max(1, vpp) * microbatch_seconds;
}

} // namespace lg::throughput
