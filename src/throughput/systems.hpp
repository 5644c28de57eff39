// Per-GPU-system rates the throughput model divides by: dense tensor-core
// peaks per precision, HBM, NVLink, scale-out network and host-link
// bandwidths (public datasheets), the fraction of each that real kernels and
// NCCL collectives reach, and the large-GEMM efficiency calibrated per system
// (docs/tune.md says on what). Pure data: no I/O.
#pragma once

#include "config/job_spec.hpp"

#include <string>

namespace lg::throughput {

struct SystemRates
{
  std::string gpu;  // GPU preset name
  // Dense (no sparsity) tensor-core peaks, FLOP/s.
  double bf16_flops = 0;
  double fp8_flops = 0;  // 0: no FP8 tensor cores (runs at the bf16 rate)
  double fp4_flops = 0;  // 0: no FP4 tensor cores (runs at the fp8 rate)
  // Bandwidths, bytes/s, one direction per GPU.
  double hbm_bw = 0;
  double nvlink_bw = 0;
  double network_bw = 0;
  double host_bw = 0;  // GPU <-> host memory (PCIe or NVLink-C2C)
  // Per kernel: the device's launch latency between queued kernels, and the
  // host's time to issue one (no CUDA graphs). Seconds.
  double kernel_gap_s = 0.5e-6;
  double host_launch_s = 3.8e-6;
  // NCCL point-to-point latency of one send/recv (pipeline, CP ring). Seconds.
  double p2p_latency_s = 10e-6;
  // Fractions of the peaks that kernels and collectives reach.
  double gemm_efficiency_bf16 = 0.7;  // calibrated (see systems.cpp)
  double gemm_efficiency_fp8 = 0.6;   // calibrated
  double gemm_efficiency_fp4 = 0.5;   // not calibrated: no FP4 row in the calibration set
  // Routed-expert grouped GEMMs (many small GEMMs, token permutation, the
  // dropless host sync) reach this fraction of the dense GEMM rate. Calibrated.
  double grouped_gemm_efficiency = 1.0;
  double attention_efficiency = 0.6;  // fused attention, fraction of the bf16 peak
  double hbm_efficiency = 0.8;
  double nvlink_efficiency = 0.8;
  double network_efficiency = 0.9;
  double host_efficiency = 0.8;
  // Fraction of a communication that the overlap machinery hides when the
  // computation it overlaps with is long enough.
  double overlap_efficiency = 0.8;
  bool known = true;  // false: fell back to the generation's defaults
};

// Return the rates of `gpu` (by preset name; unknown names fall back to the
// generation's reference GPU with known = false).
SystemRates system_rates(const config::GpuSpec& gpu);

// Return the GEMM rate (FLOP/s, peak x efficiency) `rates` reach for GEMMs in
// `precision`.
double gemm_rate(const SystemRates& rates, config::Precision precision);

} // namespace lg::throughput
