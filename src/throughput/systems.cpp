// The system table. Peaks are dense (no 2:4 sparsity) per GPU; bandwidths are
// per GPU and per direction. Sources (public datasheets):
//   [A100]  NVIDIA A100 Tensor Core GPU datasheet: BF16 312 TFLOP/s, HBM2 1,555 GB/s (40GB) /
//           HBM2e 2,039 GB/s (80GB), NVLink 600 GB/s (bidirectional); DGX A100: 8 x 200 Gb/s
//           HDR InfiniBand (one per GPU), PCIe Gen4 x16 to the host.
//   [H100]  NVIDIA H100 Tensor Core GPU datasheet (SXM): BF16 989 / FP8 1,979 TFLOP/s dense,
//           HBM3 3.35 TB/s, NVLink 900 GB/s; DGX H100: 8 x 400 Gb/s ConnectX-7, PCIe Gen5.
//   [H200]  NVIDIA H200 datasheet: H100 compute, HBM3e 4.8 TB/s, NVLink 900 GB/s.
//   [B200]  NVIDIA HGX B200 / DGX B200 datasheet: per GPU FP4 9, FP8 4.5, BF16 2.25 PFLOP/s
//           dense, HBM3e 8 TB/s, NVLink 5 1.8 TB/s; 8 x 400 Gb/s ConnectX-7, PCIe Gen5.
//   [B300]  NVIDIA HGX B300 / DGX B300 datasheet: per GPU FP4 13.5, FP8 4.5, BF16 2.25
//           PFLOP/s dense, HBM3e 8 TB/s, NVLink 5 1.8 TB/s; 8 x 800 Gb/s ConnectX-8.
//   [GB200] NVIDIA GB200 NVL72 datasheet (72 GPUs: FP4 1,440 / FP8 720 / BF16 360 PFLOP/s
//           with sparsity): per GPU FP4 10, FP8 5, BF16 2.5 PFLOP/s dense, HBM3e 8 TB/s,
//           NVLink 5 1.8 TB/s in a 72-GPU domain; NVLink-C2C 900 GB/s per Grace (two GPUs);
//           one 400 Gb/s ConnectX-7 per GPU for scale-out.
//   [GB300] NVIDIA GB300 NVL72 datasheet: per GPU FP4 15, FP8 5, BF16 2.5 PFLOP/s dense,
//           HBM3e 8 TB/s, NVLink 5 1.8 TB/s, one 800 Gb/s ConnectX-8 per GPU.
// Efficiencies that are not calibrated: NCCL busbw reaches ~80% of NVLink and ~90% of
// InfiniBand line rate in nccl-tests all_reduce/all_gather on these systems (NVIDIA/nccl-tests
// PERFORMANCE.md defines busbw); STREAM-like copies reach ~80% of HBM; fused (flash/cuDNN)
// attention reaches ~60% of the bf16 peak averaged over forward and backward
// (FlashAttention-2 and -3 papers, Dao et al. 2023, Shah et al. 2024).
// Per-kernel overheads, not calibrated (NVIDIA technical blog "Getting Started with CUDA Graphs",
// 2019: a 2.9 us kernel issued back to back from one stream takes 3.8 us per kernel, 3.4 us
// replayed from a graph): the host issues one kernel per ~3.8 us at best (PyTorch's dispatch
// only adds to that), and ~0.5 us of launch latency per kernel stays on the GPU even in a graph.
// Point-to-point latency ~10 us per NCCL send/recv across nodes (nccl-tests sendrecv_perf at
// small sizes on InfiniBand).
// Calibrated, per system and precision family (never per row): gemm_efficiency_* is the
// fraction of the dense peak the transformer GEMMs reach, fitted by `bench/tune/run.sh
// --calibrate` on the Megatron Bridge 25.09 and 25.11 performance tables and the Llama3 70B
// H100 measurements of the Megatron Bridge memory-tuning guide; docs/tune.md lists the fit.
#include "throughput/systems.hpp"

#include <array>

namespace lg::throughput {
namespace {

constexpr double k_tflops = 1e12;  // TFLOP/s
constexpr double G = 1e9;          // GB/s

SystemRates row(const char* gpu, double bf16, double fp8, double fp4, double hbm, double nvlink, double network,
                double host, double eff_bf16, double eff_fp8, double eff_fp4, double grouped)
{
  SystemRates r;
  r.gpu = gpu;
  r.bf16_flops = bf16 * k_tflops;
  r.fp8_flops = fp8 * k_tflops;
  r.fp4_flops = fp4 * k_tflops;
  r.hbm_bw = hbm * G;
  r.nvlink_bw = nvlink * G;
  r.network_bw = network * G;
  r.host_bw = host * G;
  r.gemm_efficiency_bf16 = eff_bf16;
  r.gemm_efficiency_fp8 = eff_fp8;
  r.gemm_efficiency_fp4 = eff_fp4;
  r.grouped_gemm_efficiency = grouped;
  return r;
}

const std::array<SystemRates, 8>& table()
{
  // gpu, bf16, fp8, fp4 TFLOP/s; hbm, nvlink (per direction), network, host GB/s;
  // GEMM efficiency bf16 (not calibrated: no dense bf16 row in the calibration set; ~0.7 is
  // what large cuBLAS bf16 GEMMs reach), fp8 (calibrated), fp4 (the fp8 fraction: no FP4 row
  // in the calibration set), grouped-GEMM efficiency of routed experts (calibrated).
  // b300 takes b200's calibration, h200 h100's, a100 the defaults (none in the tables).
  static const std::array<SystemRates, 8> rows = {
    row("a100-40gb", 312, 0, 0, 1555, 300, 25, 32, 0.70, 0.70, 0.70, 0.50),
    row("a100-80gb", 312, 0, 0, 2039, 300, 25, 32, 0.70, 0.70, 0.70, 0.50),
    row("h100-80gb", 989, 1979, 0, 3350, 450, 50, 64, 0.70, 0.652, 0.652, 0.415),
    row("h200-141gb", 989, 1979, 0, 4800, 450, 50, 64, 0.70, 0.652, 0.652, 0.415),
    row("b200", 2250, 4500, 9000, 8000, 900, 50, 64, 0.70, 0.502, 0.502, 0.281),
    row("b300", 2250, 4500, 13500, 8000, 900, 100, 64, 0.70, 0.502, 0.502, 0.281),
    row("gb200", 2500, 5000, 10000, 8000, 900, 50, 225, 0.70, 0.494, 0.494, 0.349),
    row("gb300", 2500, 5000, 15000, 8000, 900, 100, 225, 0.70, 0.656, 0.656, 0.518),
  };
  return rows;
}

const char* reference_gpu(config::GpuGeneration generation)
{
  switch (generation) {
  case config::GpuGeneration::ampere: return "a100-80gb";
  case config::GpuGeneration::hopper: return "h100-80gb";
  case config::GpuGeneration::blackwell: return "b200";
  }
  return "h100-80gb";
}

}  // namespace

SystemRates system_rates(const config::GpuSpec& gpu)
{
  for (const SystemRates& r : table()) {
    if (r.gpu == gpu.name) {
      return r;
    }
  }
  const char* fallback = reference_gpu(gpu.generation);
  for (const SystemRates& r : table()) {
    if (r.gpu == fallback) {
      SystemRates out = r;
      out.gpu = gpu.name;
      out.known = false;
      return out;
    }
  }
  return table()[2];
}

double gemm_rate(const SystemRates& rates, config::Precision precision)
{
  if (config::is_fp4(precision)) {
    if (rates.fp4_flops > 0) {
      return rates.fp4_flops * rates.gemm_efficiency_fp4;
    }
  }
  if (config::is_fp8(precision) || config::is_fp4(precision)) {
    if (rates.fp8_flops > 0) {
      return rates.fp8_flops * rates.gemm_efficiency_fp8;
    }
  }
  return rates.bf16_flops * rates.gemm_efficiency_bf16;
}

}  // namespace lg::throughput
