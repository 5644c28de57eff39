// Each cost term of the throughput model against a case computed by hand.
#include "throughput/terms.hpp"

#include <doctest/doctest.h>

using namespace lg::throughput;

TEST_CASE("gemm_seconds: 2MNK at the rate plus operand traffic at HBM speed")
{
  // 1000^3 GEMM at 1 TFLOP/s: 2e9 / 1e12 = 2 ms; bf16 inputs 2 x 1e6 x 2 B + output 1e6 x 2 B
  // = 6e6 B at 1e12 B/s = 6 us.
  CHECK(gemm_seconds(1000, 1000, 1000, 2, 1e12, 1e12) == doctest::Approx(2.006e-3));
  // FP8 inputs halve the input traffic: 2e6 + 2e6 B = 4 us.
  CHECK(gemm_seconds(1000, 1000, 1000, 1, 1e12, 1e12) == doctest::Approx(2.004e-3));
  CHECK(gemm_seconds(0, 1000, 1000, 2, 1e12, 1e12) == 0);
}

TEST_CASE("ring_seconds: (g - 1) / g of the gathered bytes per rank")
{
  // NCCL ring all-gather / reduce-scatter (nccl-tests PERFORMANCE.md: busbw = algbw (n-1)/n).
  CHECK(ring_seconds(8e9, 8, 1e11) == doctest::Approx(0.07));
  CHECK(ring_seconds(8e9, 1, 1e11) == 0);
  CHECK(ring_seconds(8e9, 2, 1e11) == doctest::Approx(0.04));
}

TEST_CASE("all_to_all_seconds: the off-domain share over the slow link decides")
{
  // 8 GB to 16 ranks: 0.5 GB each; 7 peers inside at 100 GB/s = 35 ms, 8 outside at 10 GB/s = 400 ms.
  CHECK(all_to_all_seconds(8e9, 16, 8, 1e11, 1e10) == doctest::Approx(0.4));
  // All inside one domain: 15 x 0.5 GB at 100 GB/s.
  CHECK(all_to_all_seconds(8e9, 16, 16, 1e11, 1e10) == doctest::Approx(0.075));
  CHECK(all_to_all_seconds(8e9, 1, 1, 1e11, 1e10) == 0);
}

TEST_CASE("exposed_seconds: overlap hides at most eff of the window and never all")
{
  CHECK(exposed_seconds(1.0, 2.0, 0.8, true) == doctest::Approx(0.2));   // window long: (1 - eff)
  CHECK(exposed_seconds(1.0, 0.5, 0.8, true) == doctest::Approx(0.6));   // window short: 1 - 0.4
  CHECK(exposed_seconds(1.0, 2.0, 0.8, false) == doctest::Approx(1.0));  // no overlap asked for
  CHECK(exposed_seconds(0.0, 2.0, 0.8, true) == 0);
}

TEST_CASE("bubble_seconds: (pp - 1) / vpp microbatch times (Narayanan et al. 2021, eq. 1 and 2)")
{
  CHECK(bubble_seconds(4, 5, 1.0) == doctest::Approx(0.6));
  CHECK(bubble_seconds(8, 1, 0.5) == doctest::Approx(3.5));
  CHECK(bubble_seconds(1, 1, 0.5) == 0);
}

TEST_CASE("tp_block_seconds: each TP collective hides only behind the GEMM it is attached to")
{
  // One block = 3 all-gathers + 2 reduce-scatters with SP (Megatron-LM
  // tensor_parallel/layers.py LinearWithGradAccumulationAndAsyncCommunication: forward AG
  // before the column GEMM, RS after the row GEMM; backward AG of the row GEMM's output
  // gradient, the column GEMM's input re-gathered behind its dgrad, its dgrad
  // reduce-scattered behind its wgrad). Collective 1 s, overlap efficiency 0.8.
  // Long windows: every collective keeps (1 - 0.8) = 0.2 s.
  CHECK(tp_block_seconds(1.0, 10, 10, 0.8, true, true, true) == doctest::Approx(5 * 0.2));
  // Short windows (column 0.5 s, row 0.25 s): 1 - 0.8 x 0.5 = 0.6 behind the column GEMM
  // (forward AG, backward re-gather, backward RS), 1 - 0.8 x 0.25 = 0.8 behind the row GEMM
  // (forward RS, backward AG): 3 x 0.6 + 2 x 0.8.
  CHECK(tp_block_seconds(1.0, 0.5, 0.25, 0.8, true, true, true) == doctest::Approx(3.4));
  // No tp_comm_overlap: forward AG, RS and the backward AG are exposed; the two asynchronous
  // backward collectives still hide: 3 + 2 x 0.2.
  CHECK(tp_block_seconds(1.0, 10, 10, 0.8, true, false, true) == doctest::Approx(3.4));
  // No SP: a forward all-reduce (2 collectives) exposed, the backward all-reduce behind the
  // column wgrad: 2 + max(0.2 x 2, 2 - 0.8 x 10).
  CHECK(tp_block_seconds(1.0, 10, 10, 0.8, false, false, true) == doctest::Approx(2.4));
  // Frozen weights (LoRA): no wgrad, the dgrad reduce-scatter is exposed: 4 x 0.2 + 1.
  CHECK(tp_block_seconds(1.0, 10, 10, 0.8, true, true, false) == doctest::Approx(1.8));
  CHECK(tp_block_seconds(0.0, 10, 10, 0.8, true, true, true) == 0);
}

TEST_CASE("shape_efficiency: tile quantization and the main loop's fill")
{
  // NVIDIA Deep Learning Performance Guide, "Matrix Multiplication Background": 128 x 128
  // output tiles. Llama3-70B's QKV GEMM at TP 8, 4096 tokens: 32 x 10 whole tiles; K = 8192
  // adds the fill, 8192 / (8192 + 256).
  CHECK(shape_efficiency(4096, 1280, 8192) == doctest::Approx(8192.0 / 8448));
  // A partial tile costs a whole one: 100 of 128 rows, 200 of 256 columns; K = 256: half fill.
  CHECK(shape_efficiency(100, 200, 256) == doctest::Approx(100.0 * 200 / (128 * 256) * 0.5));
  // An expert's GEMM with 96 routed tokens (one 128-row tile) and K = 768 (MoE FC2).
  CHECK(shape_efficiency(96, 2048, 768) == doctest::Approx(96.0 / 128 * 768 / 1024));
  CHECK(shape_efficiency(0, 1536, 2048) == 1);
}

TEST_CASE("launch_seconds: the device gap per kernel, or the host when it is slower")
{
  // 100 kernels, 0.5 us gap, the host issuing one per 3.8 us (NVIDIA technical blog "Getting
  // Started with CUDA Graphs"): behind 1 ms of GPU work the host keeps ahead, 100 x 0.5 us
  // stays; behind 0.1 ms the host needs 380 us, 280 us more than the GPU.
  CHECK(launch_seconds(1e-3, 100, 0.5e-6, 3.8e-6) == doctest::Approx(50e-6));
  CHECK(launch_seconds(1e-4, 100, 0.5e-6, 3.8e-6) == doctest::Approx(280e-6));
  CHECK(launch_seconds(1e-4, 100, 0.5e-6, 0) == doctest::Approx(50e-6));  // CUDA graphs
  CHECK(launch_seconds(1e-4, 0, 0.5e-6, 3.8e-6) == 0);
}

TEST_CASE("expert_gemm_kernels: one GEMM kernel per local expert in each of FC1 and FC2")
{
  // Transformer Engine's GroupedLinear loops over the experts, one cuBLAS GEMM each
  // (transformer_engine/common/gemm/cublaslt_gemm.cu, multi_stream_cublas_gemm): Qwen3-30B-A3B's
  // 128 experts at EP 8 are 16 per GPU, 2 x 16 forward GEMM kernels; at EP 128 one each.
  CHECK(expert_gemm_kernels(16) == 32);
  CHECK(expert_gemm_kernels(1) == 2);
  CHECK(expert_gemm_kernels(0.5) == 2);
}

TEST_CASE("node_dedup_factor: a token crosses once per remote domain, not once per expert")
{
  // Top-8 routing over 2 NVLink domains: each remote pick has probability 1/2, the remote domain
  // is reached with 1 - 2^-8, against 8 x 1/2 = 4 remote expert copies: 0.99609375 / 4.
  CHECK(node_dedup_factor(2, 8) == doctest::Approx(0.2490234375));
  // 4 domains (DeepSeek-V3 EP 32 on 8-GPU nodes): 3 x (1 - 0.75^8) = 2.69966 against 6 copies.
  CHECK(node_dedup_factor(4, 8) == doctest::Approx(4 * (1 - 0.1001129150390625) / 8));
  CHECK(node_dedup_factor(1, 8) == 1);  // one domain: nothing crosses
  CHECK(node_dedup_factor(8, 1) == 1);  // top-1: one copy either way
}
