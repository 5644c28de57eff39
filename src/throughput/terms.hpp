// The cost terms of the throughput model, each a small formula in seconds so
// it can be checked by hand (tests/unit/throughput). Pure.
#pragma once

namespace lg::throughput {

// One GEMM (M x K) * (K x N) as a roofline sum: 2MNK FLOPs at `flops_rate`
// plus its operand traffic (inputs `in_bytes` per element, 2-byte output) at
// `hbm_rate` bytes/s. A sum, not a max: small GEMMs pay for both.
double gemm_seconds(double m, double n, double k, double in_bytes, double flops_rate,
                    double hbm_rate);

// Fraction of the tensor-core rate an M x N x K GEMM reaches from its shape
// alone (NVIDIA Deep Learning Performance Guide, "Matrix Multiplication
// Background"):
// - tile quantization: the output is computed in k_tile_m x k_tile_n tiles, a
//   partial tile costs a whole one;
// - pipeline fill: each tile's main loop first loads k_fill of K before the
//   tensor cores run, and stores its output tile after: K / (K + k_fill).
// Wave quantization (a partial last wave of tiles over the SMs) is left out:
// cuBLAS's Hopper/Blackwell kernels spread it (stream-K / split-K
// schedules), and the per-shape sawtooth it gives made the ordering of
// published layouts worse (docs/tune.md). Large GEMMs reach ~1 (the
// calibrated per-system efficiency covers the rest); narrow (TP-split),
// short (small micro batch, CP, few tokens per expert) and shallow ones less.
constexpr double k_tile_m = 128, k_tile_n = 128, k_fill = 256;
double shape_efficiency(double m, double n, double k);

// Ring all-gather or reduce-scatter of `bytes` (the full, gathered size) over
// `group` ranks at `bw` bytes/s per rank: (g - 1) / g * bytes / bw. 0 for g <= 1.
double ring_seconds(double bytes, int group, double bw);

// All-to-all where each rank sends `bytes` spread evenly over `group` ranks,
// of which the first `local` (itself included) sit in its NVLink domain: the
// share to the local ranks goes at `fast_bw`, the rest at `slow_bw`.
double all_to_all_seconds(double bytes, int group, int local, double fast_bw, double slow_bw);

// Fraction of an all-to-all's cross-domain bytes that a hierarchical
// dispatcher sends: each token crosses to every remote NVLink domain holding
// one of its `topk` experts once and is forwarded inside that domain over
// NVLink (DeepEP's internode kernels and HybridEP, Megatron-LM's `flex` token
// dispatcher), instead of once per expert. With `domains` domains in the EP
// group and balanced routing (each pick uniform over the experts), a token
// reaches (n - 1)(1 - (1 - 1/n)^k) distinct remote domains against
// k (n - 1) / n remote expert copies: n (1 - (1 - 1/n)^k) / k; 1 for one
// domain.
double node_dedup_factor(int domains, double topk);

// What of a communication of `comm` seconds stays on the critical path when it
// is overlapped with `window` seconds of computation at efficiency `eff`:
// max((1 - eff) * comm, comm - eff * window). `overlapped` false: all of it.
double exposed_seconds(double comm, double window, double eff, bool overlapped);

// Exposed tensor-parallel communication of one block (attention or MLP) for
// one microbatch, forward and backward. `collective` is the time of one ring
// all-gather or reduce-scatter of the block's T x h input; `column` and `row`
// the forward time of the column-parallel GEMMs that consume the gathered
// input (QKV, FC1) and of the row-parallel GEMM whose output is reduced (proj,
// FC2). Each collective overlaps only with the GEMM it is attached to, not
// with the rest of the layer:
// - SP: forward AG -> column GEMM and RS <- row GEMM (overlapped only with
//   TE's `tp_comm_overlap`); backward AG of the output gradient -> row dgrad
//   (`tp_comm_overlap` only), and the column GEMM's input re-gather behind its
//   dgrad and its dgrad reduce-scatter behind its wgrad (always asynchronous in
//   Megatron-LM/TE). 5 collectives.
// - no SP: a forward all-reduce after the row GEMM (2 collectives, exposed),
//   and the backward all-reduce of the column dgrad behind its wgrad.
// `wgrad` false (frozen weights, LoRA): no weight-gradient GEMM to hide behind.
double tp_block_seconds(double collective, double column, double row, double eff, bool sp,
                        bool tp_comm_overlap, bool wgrad);

// Per-kernel overhead of `kernels` kernels that do `gpu` seconds of work:
// each queued kernel leaves the GPU idle for `gap` seconds (launch latency on
// the device), and the host, which issues one kernel per `host` seconds, is
// the bound when it is slower than the GPU (short kernels, no CUDA graphs:
// `host` 0). Returns the seconds added to `gpu`: kernels x gap, or what the
// host needs beyond that when it is slower.
double launch_seconds(double gpu, double kernels, double gap, double host);

// Forward kernels of a routed-expert block's two grouped GEMMs (FC1, FC2)
// with `local_experts` experts on the GPU: one GEMM kernel per expert each
// (Transformer Engine's GroupedLinear loops over the experts, one cuBLAS GEMM
// apiece: transformer_engine/common/gemm/cublaslt_gemm.cu,
// multi_stream_cublas_gemm). 2 x local_experts; at least 2.
double expert_gemm_kernels(double local_experts);

// Pipeline bubble of 1F1B / interleaved 1F1B: (pp - 1) / vpp microbatch times.
double bubble_seconds(int pp, int vpp, double microbatch_seconds);

} // namespace lg::throughput
