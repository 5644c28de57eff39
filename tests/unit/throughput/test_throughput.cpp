// The assembled throughput model: FLOP counting against Megatron Bridge's
// formula by hand, and each step cost against its formula on small jobs.
#include "estimate/model_state.hpp"
#include "estimate/pipeline.hpp"
#include "estimate/placement.hpp"
#include "support/builders.hpp"
#include "throughput/flops.hpp"
#include "throughput/systems.hpp"
#include "throughput/terms.hpp"
#include "throughput/throughput.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace lg;

TEST_CASE("model FLOPs per token: Llama3 70B as flop_utils.py transformer_flops counts it")
{
  // 6 x (h x ffn x 3 x L  +  L x (h (q + 2kv) + q h + q s)  +  h V), q = 8192, kv = 1024,
  // s = 8192, padded V = 128256. Bridge reports 727 TFLOP/s at 1619 tokens/s/GPU for this model
  // (performance-summary-archive.md, 25.09 DGX-H100): 4.490e11 per token.
  const auto spec = testing::llama3_70b_sft();
  const double expected =
    6.0
    * (8192.0 * 28672 * 3 * 80 + 80.0 * (8192.0 * (8192 + 2 * 1024) + 8192.0 * 8192 + 8192.0 * 8192) + 8192.0 * 128256);
  CHECK(throughput::model_flops_per_token(spec.model, 8192, 128256) == doctest::Approx(expected));
  CHECK(expected == doctest::Approx(727e12 / 1619).epsilon(0.01));
}

TEST_CASE("LoRA counts forward and activation gradients only: 2/3 of the FLOPs")
{
  auto spec = testing::llama3_70b_sft();
  const double full = throughput::model_flops_per_step(spec);
  spec.peft.method = "lora";
  CHECK(throughput::model_flops_per_step(spec) == doctest::Approx(full * 2 / 3));
}

TEST_CASE("the costs add up to the step and the rates follow from it")
{
  const auto spec = testing::llama3_70b_sft();
  const auto t = throughput::predict(spec);
  double sum = 0;
  for (const auto& [name, seconds] : t.costs) {
    CHECK(seconds >= 0);
    sum += seconds;
  }
  CHECK(sum == doctest::Approx(t.step_time_s));
  CHECK(t.tokens_per_sec_per_gpu == doctest::Approx(32.0 * 4096 / 32 / t.step_time_s));
  CHECK(t.tflops_per_gpu == doctest::Approx(t.model_flops_per_step / 32 / t.step_time_s / 1e12));
}

TEST_CASE("TP communication: 6 to 10 collectives a layer without tp_comm_overlap, none at TP 1")
{
  auto spec = testing::llama3_70b_sft();
  spec.training.tp_comm_overlap = false;
  const auto plain = throughput::predict(spec);
  // Per block (attention, MLP) 5 ring collectives (3 AG + 2 RS with SP) of T x h x 2 B per
  // microbatch: T = 4096, h = 8192; TP 4 inside the NVLink domain at 450 GB/s x 0.8. Without
  // tp_comm_overlap 3 of them are exposed, the 2 asynchronous backward ones partly. Stage 3
  // is the slowest (it also holds the logit layer): 20 layers x 16 microbatches.
  const auto rates = throughput::system_rates(spec.cluster.gpu_info);
  const double one = throughput::ring_seconds(4096.0 * 8192 * 2, 4, rates.nvlink_bw * rates.nvlink_efficiency);
  const double layers = 20 * 16;
  CHECK(throughput::cost(plain, "tp_comm") >= doctest::Approx(6 * one * layers));
  CHECK(throughput::cost(plain, "tp_comm") <= doctest::Approx(10 * one * layers));
  spec.training.tp_comm_overlap = true;
  const double tp4 = throughput::cost(throughput::predict(spec), "tp_comm");
  CHECK(tp4 < 0.5 * throughput::cost(plain, "tp_comm"));
  // TP 8 (DP 1): the collective grows by (7/8)/(3/4) while the QKV and proj GEMMs it hides
  // behind halve; with 2x the microbatches per rank the exposed time more than doubles.
  spec.parallelism.tp = 8;
  CHECK(throughput::cost(throughput::predict(spec), "tp_comm") > 2 * (7.0 / 8) / (3.0 / 4) * tp4);
  spec.parallelism.tp = 1;
  spec.parallelism.sequence_parallel = false;
  spec.training.tp_comm_overlap = false;
  CHECK(throughput::cost(throughput::predict(spec), "tp_comm") == 0);
}

TEST_CASE("pipeline bubble shrinks with VPP as (pp - 1) / vpp")
{
  auto spec = testing::llama3_70b_sft();
  spec.parallelism.vpp = 5;
  const double with_vpp = throughput::cost(throughput::predict(spec), "pp_bubble");
  spec.parallelism.vpp.reset();
  const double without = throughput::cost(throughput::predict(spec), "pp_bubble");
  // Stage times do not depend on VPP (same layers per rank), so the ratio is exactly 5.
  CHECK(without == doctest::Approx(5 * with_vpp));
  spec.parallelism.pp = 1;
  spec.parallelism.tp = 4;
  spec.cluster.nodes = 1;
  spec.training.global_batch_size = 16;
  CHECK(throughput::cost(throughput::predict(spec), "pp_bubble") == 0);
}

TEST_CASE("DP gradients without overlap: a ring reduce-scatter and all-gather of the stage's params")
{
  auto spec = testing::llama3_70b_sft();
  spec.training.overlap_grad_reduce = false;
  spec.training.overlap_param_gather = false;
  const auto t = throughput::predict(spec);
  // DP 2, partners TP x CP = 4 ranks apart: both in one 8-GPU NVLink domain, so NVLink
  // bandwidth. Reduce-scatter of bf16 grads + all-gather of bf16 params (2 B each) of the
  // slowest stage (the last: it also holds the output layer).
  const auto layouts = estimate::pipeline_layout(spec);
  const auto rates = throughput::system_rates(spec.cluster.gpu_info);
  const auto params = estimate::stage_parameters(spec, layouts.back());
  const double expected = 2 * throughput::ring_seconds(params.dense * 2, 2, rates.nvlink_bw * rates.nvlink_efficiency);
  const double worst = throughput::cost(t, "dp_comm");
  CHECK(worst == doctest::Approx(expected));
  spec.training.overlap_grad_reduce = true;
  spec.training.overlap_param_gather = true;
  CHECK(throughput::cost(throughput::predict(spec), "dp_comm") < worst);
}

TEST_CASE("DP gradient reduce overlaps one whole microbatch's backward, the last one")
{
  // Megatron-LM (d98e8a6) megatron/core/pipeline_parallel/schedules.py:814-839: every
  // microbatch but the last runs under no_sync_func(), the last one's backward reduces the
  // gradients; :2430-2433 and :2459-2461: the same for 1F1B's last backward. The window is
  // that one backward, 2/3 of one microbatch's compute, not 1/m of it.
  auto spec = testing::llama3_70b_sft();
  spec.parallelism.pp = 1;  // one stage, no interleaving: TP 4 x DP 8, m = 32 / 8 = 4
  spec.parallelism.vpp.reset();
  spec.training.overlap_param_gather = false;
  spec.training.overlap_grad_reduce = false;
  const double off = throughput::cost(throughput::predict(spec), "dp_comm");
  // bf16 gradients and bf16 parameters: the reduce-scatter and the all-gather move the same
  // bytes over the same group, each half of `off`.
  const double reduce = off / 2;
  spec.training.overlap_grad_reduce = true;
  const auto t = throughput::predict(spec);
  const double m = 4;
  const double backward = throughput::cost(t, "compute") / m * 2 / 3;
  const double eff = throughput::system_rates(spec.cluster.gpu_info).overlap_efficiency;
  const double expected = std::max((1 - eff) * reduce, reduce - eff * backward) + reduce;
  CHECK(throughput::cost(t, "dp_comm") == doctest::Approx(expected));
  // The case is one where the window decides (a window of 1/m of it hides less).
  CHECK(reduce - eff * backward / m > (1 - eff) * reduce);
}

TEST_CASE("recompute adds forward work: core attention by hand, full recompute the whole forward")
{
  auto spec = testing::llama3_70b_sft();
  const double none = throughput::cost(throughput::predict(spec), "recompute");
  CHECK(none == 0);
  spec.training.recompute.granularity = config::RecomputeGranularity::selective;
  spec.training.recompute.modules = {"core_attn"};
  const auto rates = throughput::system_rates(spec.cluster.gpu_info);
  // Causal core attention forward per layer per microbatch: 2 x T x s x heads/tp x 2 x 128 / 2
  // FLOPs at the bf16 peak x attention efficiency; 20 layers x 16 microbatches.
  const double attention = 2.0 * 4096 * 4096 * 16 * 256 / 2 / (rates.bf16_flops * rates.attention_efficiency);
  CHECK(throughput::cost(throughput::predict(spec), "recompute") == doctest::Approx(attention * 20 * 16));
  spec.training.recompute.granularity = config::RecomputeGranularity::full;
  const auto full = throughput::predict(spec);
  CHECK(throughput::cost(full, "recompute") > 0.25 * throughput::cost(full, "compute"));
  CHECK(throughput::cost(full, "recompute") < 0.40 * throughput::cost(full, "compute"));
}

TEST_CASE("expert all-to-all appears with EP > 1 on MoE layers and overlap reduces it")
{
  auto spec = testing::moe_container_job();
  spec.cluster.gpu_info = testing::gpu("h100-80gb");
  const auto t = throughput::predict(spec);
  CHECK(throughput::cost(t, "ep_comm") > 0);
  spec.training.overlap_moe_expert_parallel_comm = true;
  CHECK(throughput::cost(throughput::predict(spec), "ep_comm") < throughput::cost(t, "ep_comm"));
}

TEST_CASE("fewer expert-parallel ranks: more local experts, one GEMM kernel each")
{
  // Qwen3-30B-A3B (48 MoE layers, 128 experts) on 16 H100, TP 2, PP 1, GBS 64, MBS 1: EP 8
  // holds 16 experts per GPU, EP 2 64. FC1 and FC2 are one kernel per local expert forward
  // (terms.hpp, expert_gemm_kernels), backward twice as many: (64 - 16) x 2 x 3 more kernels a
  // layer, 48 layers, 8 microbatches per rank (DP 8) at EP 8 and EP 2 alike, each costing the
  // 0.5 us device gap (GPU-bound: the host keeps ahead).
  auto spec = testing::moe_container_job();
  spec.cluster.gpu_info = testing::gpu("h100-80gb");
  const double ep8 = throughput::cost(throughput::predict(spec), "launch");
  spec.parallelism.ep = 2;
  const double ep2 = throughput::cost(throughput::predict(spec), "launch");
  CHECK(ep2 - ep8 == doctest::Approx((64 - 16) * 2 * 3 * 48 * 8 * 0.5e-6));
}

TEST_CASE("flex dispatcher: the cross-node share of the expert all-to-all sent once per node")
{
  // Qwen3-30B-A3B at TP 1, EP 16 over two 8-GPU H100 nodes: each all-to-all sends 1/16 of
  // T x topk x h x 2 B to each peer; 7 peers over NVLink (360 GB/s) take less than the 8 over
  // the network (45 GB/s), which decide. DeepEP/HybridEP send a token once to the other node
  // (terms.hpp, node_dedup_factor(2, 8) = 0.2490234375 of the bytes), still slower than NVLink.
  auto spec = testing::moe_container_job();
  spec.cluster.gpu_info = testing::gpu("h100-80gb");
  spec.parallelism.tp = 1;
  spec.parallelism.sequence_parallel = false;
  spec.parallelism.ep = 16;
  spec.parallelism.etp = 1;
  const double alltoall = throughput::cost(throughput::predict(spec), "ep_comm");
  spec.model.moe->token_dispatcher = "flex";
  const double flex = throughput::cost(throughput::predict(spec), "ep_comm");
  CHECK(alltoall > 0);
  CHECK(flex == doctest::Approx(0.2490234375 * alltoall));
  // Inside one NVLink domain (EP 8) nothing crosses: the dispatcher changes nothing.
  spec.parallelism.ep = 8;
  const double inside = throughput::cost(throughput::predict(spec), "ep_comm");
  spec.model.moe->token_dispatcher = "alltoall";
  CHECK(throughput::cost(throughput::predict(spec), "ep_comm") == doctest::Approx(inside));
}

TEST_CASE("activation offload costs host-link time only when it is enabled")
{
  auto spec = testing::llama3_70b_sft();
  spec.parallelism.pp = 1;
  spec.parallelism.vpp.reset();
  spec.parallelism.tp = 8;
  spec.cluster.nodes = 1;
  spec.training.global_batch_size = 8;
  CHECK(throughput::cost(throughput::predict(spec), "offload") == 0);
  spec.training.cpu_offloading_layers = 40;
  CHECK(throughput::cost(throughput::predict(spec), "offload") > 0);
}

TEST_CASE("per-kernel overhead: per microbatch, so a larger micro batch pays it fewer times")
{
  // Llama3-70B SFT (TP 4, PP 4, VPP 5) on H100: each layer's kernels cost the device gap
  // per microbatch (GPU-bound: the host keeps ahead), so MBS 2 at the same global batch
  // launches half the microbatches and pays exactly half.
  auto spec = testing::llama3_70b_sft();
  const double mbs1 = throughput::cost(throughput::predict(spec), "launch");
  CHECK(mbs1 > 0);
  spec.training.micro_batch_size = 2;
  CHECK(throughput::cost(throughput::predict(spec), "launch") == doctest::Approx(mbs1 / 2));
  // CP 2 (DP 2 -> 1): twice the microbatches per rank, and the ring's extra attention steps
  // and sends are more kernels in each: more than twice the overhead.
  spec.training.micro_batch_size = 1;
  spec.parallelism.cp = 2;
  CHECK(throughput::cost(throughput::predict(spec), "launch") > 2 * mbs1);
}

TEST_CASE("pipeline p2p without interleaving: every send on the critical path, bytes plus latency")
{
  // 1F1B (Narayanan et al. 2021): m + pp - 1 forward and as many backward transfers on the
  // critical path. Llama3-70B SFT, TP 4 (SP) x PP 4, DP 2: a stage boundary moves T x h / TP
  // = 4096 x 8192 x 2 B / 4; TP x DP fills the 8-GPU node, so the next stage is across the
  // network; each send also pays the NCCL send/recv latency (systems.cpp).
  auto spec = testing::llama3_70b_sft();
  spec.parallelism.vpp.reset();
  const auto rates = throughput::system_rates(spec.cluster.gpu_info);
  const double per_send = 4096.0 * 8192 * 2 / 4 / (rates.network_bw * rates.network_efficiency) + rates.p2p_latency_s;
  const double m = 32 / 2;  // GBS 32 over DP 2, MBS 1
  CHECK(throughput::cost(throughput::predict(spec), "pp_p2p") == doctest::Approx(2 * (m + 4 - 1) * per_send));
}

TEST_CASE("pipeline p2p inside an NVL72 rack goes over NVLink, across 4-GPU trays")
{
  // The same Llama3-70B SFT pipeline (TP 4, PP 4, DP 2, 32 GPUs) on GB200: 8 trays of 4 GPUs,
  // every one in the rack's 72-GPU NVLink domain (GB200 NVL72 datasheet), so each stage
  // boundary moves its T x h / TP over NVLink at 900 GB/s x 0.8, not the tray's ConnectX-7.
  auto spec = testing::llama3_70b_sft();
  spec.parallelism.vpp.reset();
  spec.cluster.gpu_info = testing::gpu("gb200");
  spec.cluster.gpus_per_node = 4;
  spec.cluster.nodes = 8;
  const auto rates = throughput::system_rates(spec.cluster.gpu_info);
  const double per_send = 4096.0 * 8192 * 2 / 4 / (rates.nvlink_bw * rates.nvlink_efficiency) + rates.p2p_latency_s;
  const double m = 32 / 2;
  CHECK(throughput::cost(throughput::predict(spec), "pp_p2p") == doctest::Approx(2 * (m + 4 - 1) * per_send));
}

TEST_CASE("CP ring attention: 3 (cp - 1) KV sends a layer, bytes plus latency, (1 - eff) exposed")
{
  // Ring attention (Megatron-LM/TE context parallelism): forward KV, backward KV and dKV, cp - 1
  // sends each. Llama3-70B SFT at CP 2 (DP 2 -> 1): T = 4096 / 2 tokens, K and V of
  // 8 groups / TP 4 x 128 channels; TP 4 x CP 2 fills the node (NVLink). The attention step it
  // overlaps with is long, so (1 - 0.8) of each send stays; 20 layers x 32 microbatches.
  auto spec = testing::llama3_70b_sft();
  spec.parallelism.cp = 2;
  const auto rates = throughput::system_rates(spec.cluster.gpu_info);
  const double send = 2048.0 * (2 * 2 * 128) * 2 / (rates.nvlink_bw * rates.nvlink_efficiency) + rates.p2p_latency_s;
  const double layer = (1 - rates.overlap_efficiency) * 3 * send;
  CHECK(throughput::cost(throughput::predict(spec), "cp_comm") == doctest::Approx(layer * 20 * 32));
}

TEST_CASE("FSDP under LoRA gathers the frozen base weights every microbatch, reduces only the adapters' grads")
{
  // Megatron FSDP (optim_grads_params) shards every parameter, frozen ones included
  // (Megatron-LM megatron/core/distributed/fsdp/src/README.md: one ParamAndGradBuffer holds
  // them all; the memory estimate shards the base weights the same way), so each microbatch
  // all-gathers the whole stage for forward and again for backward; the gradient
  // reduce-scatter carries the trainable adapters only. By hand with no overlap (efficiency 0):
  // 8 GPUs in one NVLink domain, FSDP over 8, GBS 32 / (DP 8 x MBS 1) = 4 microbatches.
  auto spec = testing::llama3_70b_sft();
  spec.parallelism.tp = 1;
  spec.parallelism.pp = 1;
  spec.parallelism.vpp.reset();
  spec.parallelism.sequence_parallel = false;
  spec.cluster.nodes = 1;
  spec.training.fsdp = config::Fsdp::megatron;
  spec.peft.method = "lora";
  auto rates = throughput::system_rates(spec.cluster.gpu_info);
  rates.overlap_efficiency = 0;
  const auto params = estimate::stage_parameters(spec, estimate::pipeline_layout(spec).front());
  const double bw = rates.nvlink_bw * rates.nvlink_efficiency;
  const double per_microbatch = 2 * throughput::ring_seconds((params.dense + params.lora) * 2, 8, bw)
                                + throughput::ring_seconds(params.lora * 2, 8, bw);
  CHECK(params.dense > 100 * params.lora);  // the gathers are the base weights'
  CHECK(throughput::cost(throughput::predict(spec, rates), "fsdp_comm") == doctest::Approx(4 * per_microbatch));
}
