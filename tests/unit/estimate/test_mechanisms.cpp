// Memory mechanisms beyond the basic model, each tied to the upstream code
// the bytes come from: pipeline layouts and split accounting, interleaved
// microbatch groups, cross-entropy fusion, deferred embedding wgrad, MTP,
// fine-grained offloading, optimizers and their instances, fp8 primary
// weights, the first-iteration peak, the optimizer step's fp32 gradients, honesty (unknown) and saturation.
#include "support/stage_component.hpp"
#include "config/job_spec.hpp"
#include "estimate/activations.hpp"
#include "estimate/error_band.hpp"
#include "config/not_modelled.hpp"
#include "estimate/estimate.hpp"
#include "estimate/overheads.hpp"
#include "estimate/pipeline.hpp"
#include "support/builders.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

namespace {

using lg::estimate::Options;
using lg::estimate::StageEstimate;

lg::estimate::Estimate run(const lg::config::JobSpec& spec)
{
  return lg::estimate::estimate(spec, Options{});
}

// The shape of Megatron-LM's small MoE functional tests: hidden 512, seq
// 1024, micro batch 4, 8 experts of FFN 1024.
lg::config::JobSpec functional_test_moe()
{
  auto spec = lg::testing::minimal_job_spec();
  spec.model.hidden_size = 512;
  spec.model.seq_length = 1024;
  spec.training.micro_batch_size = 4;
  spec.model.moe = lg::config::MoeSpec{};
  spec.model.moe->num_experts = 8;
  spec.model.moe->moe_ffn_hidden_size = 1024;
  return spec;
}

} // namespace

TEST_SUITE_BEGIN("estimate");

TEST_CASE("layout: Megatron's layout string unrolls groups and repeats")
{
  // pipeline_parallel_layer_layout.py parse_str_to_list: (…)*n then x*n, '|'
  // separates stages. DeepSeek-V3's 61 layers + 1 MTP over 16 stages.
  const auto stages = lg::config::parse_pipeline_layout("Et*4|(t*4|)*14tmL");
  REQUIRE(stages.size() == 16);
  CHECK(stages.front().embedding);
  CHECK(stages.front().decoder_layers == 4);
  CHECK(stages[7].decoder_layers == 4);
  CHECK(stages.back().decoder_layers == 1);
  CHECK(stages.back().mtp_layers == 1);
  CHECK(stages.back().loss);
  CHECK_THROWS_AS(lg::config::parse_pipeline_layout("Et*4|x"), lg::InputError);
  CHECK_THROWS_AS(lg::config::parse_pipeline_layout("E(tt|"), lg::InputError);
}

TEST_CASE("layout: stage i is chunk i / pp of rank i % pp")
{
  auto spec = lg::testing::llama3_70b_sft();
  spec.model.num_layers = 61;
  spec.model.mtp_num_layers = 1;
  spec.parallelism.pp = 8;
  spec.parallelism.vpp.reset();
  spec.parallelism.pipeline_layout = "Et*4|(t*4|)*14tmL";
  spec.cluster.nodes = 8;
  const auto ranks = lg::estimate::pipeline_layout(spec);
  REQUIRE(ranks.size() == 8);
  CHECK(ranks[0].chunks == 2);
  CHECK(ranks[0].has_embedding);
  CHECK(ranks[0].chunk_layers[0] == std::vector<int>{0, 1, 2, 3});
  CHECK(ranks[0].chunk_layers[1].front() == 32);  // stage 8 = chunk 1 of rank 0
  CHECK(ranks[7].has_output);
  CHECK(ranks[7].mtp_layers == 1);
  CHECK(ranks[7].chunk_layers[1] == std::vector<int>{60});
}

TEST_CASE("layout: embedding and loss accounted in the split take a layer's place")
{
  // transformer_block.py get_num_layers_to_build: num_layers + 1 for each,
  // minus one on the first / last virtual stage.
  auto spec = lg::testing::llama3_70b_sft();
  spec.model.num_layers = 30;
  spec.parallelism.vpp = 2;
  spec.parallelism.account_for_embedding_in_pipeline_split = true;
  spec.parallelism.account_for_loss_in_pipeline_split = true;
  const auto ranks = lg::estimate::pipeline_layout(spec);
  CHECK(ranks[0].chunk_layers[0].size() == 3);
  CHECK(ranks[0].chunk_layers[1].size() == 4);
  CHECK(ranks[3].chunk_layers[1].size() == 3);
  CHECK(ranks[3].chunk_layers[1].back() == 29);
}

TEST_CASE("interleaved warm-up: the microbatch group size sets chunk 0's share")
{
  // schedules.py: warmup = 2 (pp - r - 1) + (vpp - 1) * group; forwards run
  // `group` microbatches through a chunk before moving to the next.
  using lg::estimate::in_flight_chunks;
  using lg::estimate::in_flight_per_chunk;
  CHECK(in_flight_chunks(4, 0, 5, 16, 0) == 23);
  CHECK(in_flight_chunks(4, 0, 5, 16, 8) == 39);
  const auto per = in_flight_per_chunk(23, 5, 4);
  CHECK(per == std::vector<int>{7, 4, 4, 4, 4});
  auto spec = lg::testing::llama3_70b_sft();
  const double base = run(spec).stages.front().allocated_peak_bytes;
  spec.parallelism.microbatch_group_size_per_vp_stage = 8;
  CHECK(run(spec).stages.front().allocated_peak_bytes > base);
}

TEST_CASE("cross-entropy: native fusion keeps a second fp32 copy, TE none")
{
  // tensor_parallel/cross_entropy.py: .float() then exp(out=) in place: bf16 +
  // fp32; fusions/fused_cross_entropy.py jit-fuses the same steps (exp_logits
  // its own fp32 buffer); TE parallel_cross_entropy writes grads in place.
  auto spec = lg::testing::llama3_70b_sft();
  const double elements = lg::estimate::logits_elements(spec);
  CHECK(lg::estimate::logits_bytes(spec) == doctest::Approx(6 * elements));
  spec.training.cross_entropy_fusion = "native";
  CHECK(lg::estimate::logits_bytes(spec) == doctest::Approx(10 * elements));
  spec.training.cross_entropy_fusion = "te";
  CHECK(lg::estimate::logits_bytes(spec) == doctest::Approx(2 * elements));
}

TEST_CASE("deferred embedding wgrad keeps input and grad_output per deferred microbatch")
{
  // tensor_parallel/layers.py: embedding_activation_buffer / grad_output_buffer
  // grow until wgrad_deferral_limit (0 = all microbatches).
  auto spec = lg::testing::llama3_70b_sft();
  spec.training.defer_embedding_wgrad_compute = true;
  spec.training.wgrad_deferral_limit = 22;
  const auto est = run(spec);
  const double per = lg::estimate::layer_input_bytes(spec) + 2 * lg::estimate::logits_elements(spec);
  CHECK(lg::testing::stage_component(est.stages.back(), "deferred_embedding_wgrad") == doctest::Approx(16 * per));
  CHECK(lg::testing::stage_component(est.stages.front(), "deferred_embedding_wgrad") == 0);
  spec.training.wgrad_deferral_limit = 4;
  CHECK(lg::testing::stage_component(run(spec).stages.back(), "deferred_embedding_wgrad") == doctest::Approx(4 * per));
}

TEST_CASE("MTP: its layers' activations and its own logits on the last stage")
{
  auto spec = lg::testing::llama3_70b_sft();
  const auto base = run(spec).stages.back();
  spec.model.mtp_num_layers = 1;
  const auto mtp = run(spec).stages.back();
  CHECK(lg::testing::stage_component(mtp, "activations") > lg::testing::stage_component(base, "activations"));
  CHECK(lg::testing::stage_component(mtp, "logits") == doctest::Approx(2 * lg::testing::stage_component(base, "logits")));
}

TEST_CASE("fine-grained offloading removes the offloaded modules' inputs")
{
  // transformer_config.py offload_modules: "offload the input of" each module.
  auto spec = lg::testing::llama3_70b_sft();
  const double base = lg::estimate::layer_activation_bytes(spec, 0);
  spec.training.fine_grained_activation_offloading = true;
  spec.training.offload_modules = {"attn_norm", "mlp_norm"};
  const double offloaded = lg::estimate::layer_activation_bytes(spec, 0);
  const double tokens = 4096.0 / 4;  // s*b over SP
  CHECK(base - offloaded == doctest::Approx(2 * 2 * 8192 * tokens));
}

TEST_CASE("fine-grained offloading of core_attn takes the unfused scores along")
{
  // Megatron-LM core/pipeline_parallel/fine_grained_activation_offload.py:
  // the offloaded module runs inside PipelineOffloadManager, whose
  // saved_tensors_hooks (__enter__, on_save_for_backward -> tensor_push)
  // offload every tensor autograd saves there of at least 1M elements, not
  // only the module's input; for unfused attention that is the a*s*s softmax
  // (2 B per element, no attention dropout).
  auto spec = lg::testing::llama3_70b_sft();
  spec.parallelism.tp = 8;
  spec.training.attention_backend = lg::config::AttentionBackend::unfused;
  const double base = lg::estimate::layer_activation_bytes(spec, 0);
  spec.training.fine_grained_activation_offloading = true;
  spec.training.offload_modules = {"core_attn"};
  const double offloaded = lg::estimate::layer_activation_bytes(spec, 0);
  const double scores = 2.0 * 64 * 4096 * 4096 / 8;
  const double qkv = 2.0 * (64 + 2 * 8) * 128 / 8 * 4096;  // q, k, v after rope
  CHECK(base - offloaded == doctest::Approx(scores + qkv));
}

TEST_CASE("optimizers: Muon one momentum for linear weights, Lion one, instances divide less")
{
  // core/optimizer/__init__.py: Adam exp_avg + exp_avg_sq, Lion exp_avg;
  // emerging_optimizers.py: Muon for 2-D linear weights, Adam for the rest.
  auto spec = lg::testing::llama3_70b_sft();
  const double adam = lg::testing::stage_component(run(spec).stages[1], "optimizer_state");
  spec.training.optimizer.name = "lion";
  const double lion = lg::testing::stage_component(run(spec).stages[1], "optimizer_state");
  CHECK(lion == doctest::Approx(adam * 8 / 12));
  spec.training.optimizer.name = "muon";
  const double muon = lg::testing::stage_component(run(spec).stages[1], "optimizer_state");
  CHECK(muon < adam);
  CHECK(muon > lion);  // norms stay on Adam
  spec.training.optimizer.name = "adam";
  spec.training.optimizer.distributed_instances = 2;  // DP 2 / 2 instances
  CHECK(lg::testing::stage_component(run(spec).stages[1], "optimizer_state") == doctest::Approx(2 * adam));
}

TEST_CASE("fp8 primary weights: only GEMM weights are one byte")
{
  auto spec = lg::testing::llama3_70b_sft();
  const auto bf16 = run(spec).stages.front();
  spec.training.fp8_param_gather = true;
  const auto fp8 = run(spec).stages.front();
  const double saved = lg::testing::stage_component(bf16, "weights") - lg::testing::stage_component(fp8, "weights");
  // 20 layers of (attention + MLP) GEMM weights / tp 4, one byte each saved;
  // the embedding (128512 x 8192 / 4) stays bf16.
  const double linear = 20.0 * (8192.0 * (64 + 16) * 128 + 64 * 128 * 8192.0 + 3 * 8192.0 * 28672) / 4;
  CHECK(saved == doctest::Approx(linear));
}

TEST_CASE("fp8 weight cache: tensor-scaled fp8 primary weights on Blackwell keep no transpose")
{
  // TransformerEngine pytorch/utils.py:658-663 (is_non_tn_fp8_gemm_supported:
  // compute capability 10.x) and tensor/storage/float8_tensor_storage.py:292-297
  // (update_usage drops the transpose): one data buffer serves both GEMM layouts.
  auto spec = lg::testing::llama3_70b_sft();  // fp8_cs on H100
  spec.training.fp8_param_gather = true;
  // Stage 0's GEMM weights: 20 layers of QKV, proj, fc1 (gated) and fc2 over TP 4.
  const double linear = 20.0 * (8192.0 * (64 + 16) * 128 + 64 * 128 * 8192.0 + 3 * 8192.0 * 28672) / 4;
  CHECK(lg::testing::stage_component(run(spec).stages.front(), "fp8_weight_cache") == doctest::Approx(linear));
  spec.cluster.gpu_info = lg::testing::gpu("b200");
  CHECK(lg::testing::stage_component(run(spec).stages.front(), "fp8_weight_cache") == 0);
  // Without fp8 primary weights TE still caches the quantized weight (1 byte).
  spec.training.fp8_param_gather = false;
  CHECK(lg::testing::stage_component(run(spec).stages.front(), "fp8_weight_cache") == doctest::Approx(linear));
  // MXFP8 scales each direction separately: the column-wise copy stays.
  spec.training.fp8_param_gather = true;
  spec.training.precision = lg::config::Precision::mxfp8;
  CHECK(lg::testing::stage_component(run(spec).stages.front(), "fp8_weight_cache") == doctest::Approx(linear));
}

TEST_CASE("first iteration: the optimizer's moments come after its forward/backward")
{
  // Adam state is created lazily in the first step (init_state_fn only on
  // checkpoint load: core/optimizer/optimizer.py state_dict(is_loading)).
  auto spec = lg::testing::llama3_70b_sft();
  spec.training.optimizer.grad_dtype = "fp32";  // no fp32 gradient copy at the step
  const auto est = run(spec);
  const auto& s = est.stages.front();
  const double params = 20.0 * (8192.0 * 80 * 128 + 64 * 128 * 8192.0 + 3 * 8192.0 * 28672) / 4;
  CHECK(s.allocated_peak_bytes - s.first_iteration_allocated_bytes > 8 * params / 2);
}

TEST_CASE("optimizer step: the fp32 copy of bf16 main gradients can be the peak")
{
  // Megatron-LM core/optimizer/distrib_optimizer.py
  // _copy_model_grads_to_main_grads: shard_main_param.grad =
  // shard_model_grad.float() (optimizer.py: main_param.grad =
  // main_grad.float() without the distributed optimizer), alive until the
  // next zero_grad. On a bf16 grad buffer that is 4 bytes per parameter of
  // this rank's optimizer shard, next to the weights, grads, master and
  // moments, after the activations are freed.
  auto spec = lg::testing::llama3_70b_sft();
  spec.parallelism.tp = 8;  // DP 1: the shard is every parameter of the stage
  spec.training.recompute.granularity = lg::config::RecomputeGranularity::full;
  spec.training.recompute.num_layers = 1;
  const auto est = run(spec);
  const auto& s = est.stages.front();
  const double params = static_cast<double>(est.parameters.per_gpu);
  CHECK(lg::testing::stage_component(s, "optimizer_step_grads") == doctest::Approx(4 * params));
  CHECK(lg::testing::stage_component(s, "activations") == 0);  // freed before the step
  // The first iteration's report includes the step (its moments are created there).
  CHECK(s.first_iteration_allocated_bytes == doctest::Approx(s.allocated_peak_bytes));
  // fp32 main gradients: .float() is a no-op, nothing extra at the step.
  spec.training.optimizer.grad_dtype = "fp32";
  CHECK(lg::testing::stage_component(run(spec).stages.front(), "optimizer_step_grads") == 0);
  // The precision-aware optimizer reads the bf16 shard as decoupled_grad
  // (no fp8 primary weights here).
  spec.training.optimizer.grad_dtype = "bf16";
  spec.training.optimizer.precision_aware = true;
  CHECK(lg::testing::stage_component(run(spec).stages.front(), "optimizer_step_grads") == 0);
}

TEST_CASE("GEMM workspaces: grouped GEMMs and TP overlap add Transformer Engine's own")
{
  // TransformerEngine transformer_engine/pytorch/cpp_extensions/gemm.py
  // get_cublas_workspace (lru_cache, torch.empty): grouped GEMMs take one
  // get_cublas_workspace_size_bytes() (32 MiB + 1 KiB on Hopper) per compute
  // stream (4, common/util/multi_stream.cpp get_num_compute_streams), the
  // userbuffers GEMMs _NUM_MAX_UB_STREAMS = 3 of them; 4 MiB each on Ampere.
  const double ws = 32.0 * 1024 * 1024 + 1024;
  auto spec = lg::testing::minimal_job_spec();
  const double base = lg::estimate::gemm_workspace_bytes(spec);
  spec.model.moe = lg::config::MoeSpec{};
  spec.model.moe->num_experts = 8;
  spec.model.moe->moe_ffn_hidden_size = 1024;
  CHECK(lg::estimate::gemm_workspace_bytes(spec) - base == doctest::Approx(4 * ws));
  spec.model.moe->grouped_gemm = false;  // SequentialMLP: one GEMM at a time
  CHECK(lg::estimate::gemm_workspace_bytes(spec) == doctest::Approx(base));
  spec.parallelism.tp = 2;
  spec.parallelism.sequence_parallel = true;
  spec.training.tp_comm_overlap = true;
  CHECK(lg::estimate::gemm_workspace_bytes(spec) - base == doctest::Approx(3 * ws));
  spec.cluster.gpu_info.generation = lg::config::GpuGeneration::ampere;
  CHECK(lg::estimate::gemm_workspace_bytes(spec) - base == doctest::Approx(3 * 4.0 * 1024 * 1024));
}

TEST_CASE("allgather dispatcher: the gathered hidden states stay in the global buffer")
{
  // Megatron-LM core/transformer/moe/token_dispatcher.py token_dispatch:
  // gather_from_sequence_parallel_region(hidden_states, group=tp_ep_group,
  // use_global_buffer=True), kept by core/utils.py GlobalMemoryBuffer:
  // [s*b/tp * tp*ep, h] in bf16 (the functional tests' ep8 runs: 33.5 MB).
  auto spec = functional_test_moe();
  spec.model.moe->token_dispatcher = "allgather";
  spec.parallelism.ep = 8;
  CHECK(lg::estimate::dispatcher_buffer_bytes(spec) == doctest::Approx(1024.0 * 4 * 8 * 512 * 2));
  const auto est = run(spec);
  CHECK(lg::testing::stage_component(est.stages.front(), "dispatcher_buffers") ==
        doctest::Approx(1024.0 * 4 * 8 * 512 * 2));
  spec.model.moe->token_dispatcher = "alltoall";  // no persistent gather buffer
  CHECK(lg::estimate::dispatcher_buffer_bytes(spec) == 0);
}

TEST_CASE("MoE experts: a non-gated activation times the routing probabilities keeps its output")
{
  // Megatron-LM core/transformer/moe/experts.py TEGroupedMLP.forward,
  // bias_act_func: `activation(x) * permuted_probs` runs in autograd, which
  // saves the activation's output for the probabilities' gradient; the fused
  // weighted_bias_swiglu_impl (gated SwiGLU) saves only its input. The same in
  // core/transformer/mlp.py MLP.forward (per_token_scale) for SequentialMLP.
  auto spec = functional_test_moe();
  spec.model.moe->router_topk = 2;
  spec.parallelism.ep = 4;
  spec.model.activation = lg::config::Activation::gelu;
  const double gelu = lg::estimate::layer_activation_bytes(spec, 0);
  spec.training.recompute.granularity = lg::config::RecomputeGranularity::selective;
  spec.training.recompute.modules = {"moe_act"};
  const double recomputed = lg::estimate::layer_activation_bytes(spec, 0);
  // Recomputing moe_act (CheckpointWithoutOutput) drops the fc2 input and,
  // for gelu, the probabilities' saved operand: 2 x [routed tokens, ffn] in
  // bf16; for the fused SwiGLU only the fc2 input.
  const double routed = 2.0 * 1024 * 4;  // top-2 of s*b tokens
  CHECK(gelu - recomputed == doctest::Approx(routed * 1024 * 2 * 2));
  spec.model.activation = lg::config::Activation::swiglu;
  const double swiglu_recomputed = lg::estimate::layer_activation_bytes(spec, 0);
  spec.training.recompute.granularity = lg::config::RecomputeGranularity::none;
  spec.training.recompute.modules.clear();
  CHECK(lg::estimate::layer_activation_bytes(spec, 0) - swiglu_recomputed ==
        doctest::Approx(routed * 1024 * 2));
}

TEST_CASE("unfused attention: a PyTorch softmax in fp32 keeps the fp32 probabilities too")
{
  // Megatron-LM core/fusions/fused_softmax.py forward_torch_softmax:
  // input.float(), torch.nn.Softmax (saves its fp32 output), then
  // .half()/.bfloat16() for dropout (mask 1 B + output 2 B) or the bmm (2 B).
  auto spec = functional_test_moe();
  spec.model.moe.reset();
  spec.model.num_attention_heads = 8;
  spec.training.attention_backend = lg::config::AttentionBackend::unfused;
  spec.model.attention_dropout = 0.1;
  const double scores = 8.0 * 1024 * 4 * 1024;  // heads x s*b x s
  const double dropout = lg::estimate::layer_activation_bytes(spec, 0);
  spec.training.unfused_softmax_in_fp32 = true;
  CHECK(lg::estimate::layer_activation_bytes(spec, 0) - dropout == doctest::Approx(2 * scores));
  spec.model.attention_dropout = 0;
  const double fp32 = lg::estimate::layer_activation_bytes(spec, 0);
  spec.training.unfused_softmax_in_fp32 = false;
  CHECK(fp32 - lg::estimate::layer_activation_bytes(spec, 0) == doctest::Approx(4 * scores));
}

TEST_CASE("honesty: a feature that is not modelled makes the verdict unknown")
{
  auto spec = lg::testing::llama3_70b_sft();
  spec.training.cuda_graphs = lg::config::CudaGraphs::full_iteration;
  const auto graphs = run(spec);
  CHECK(graphs.verdict == lg::estimate::Verdict::unknown);
  REQUIRE_FALSE(graphs.not_modelled.empty());
  CHECK(graphs.not_modelled.front().find("full-iteration CUDA graphs") != std::string::npos);
  spec = lg::testing::llama3_70b_sft();
  lg::config::note_not_modelled(spec, "--deepspeed", "stage 3");
  REQUIRE(spec.not_modelled.size() == 1);
  spec.model.num_layers = 800;  // would be oom
  CHECK(run(spec).verdict == lg::estimate::Verdict::unknown);
  CHECK(std::string(lg::estimate::to_string(lg::estimate::Verdict::unknown)) == "unknown");
}

TEST_CASE("saturation: absurd sizes give finite, non-negative bytes")
{
  auto spec = lg::testing::llama3_70b_sft();
  spec.model.num_layers = 10000;
  spec.model.hidden_size = 1 << 20;
  spec.model.ffn_hidden_size = 1 << 22;
  spec.model.seq_length = 1 << 24;
  spec.model.vocab_size = 100000000;
  spec.training.micro_batch_size = 1 << 20;
  spec.model.moe.emplace();
  spec.model.moe->num_experts = 1 << 16;
  spec.model.moe->moe_ffn_hidden_size = 1 << 22;
  const auto est = run(spec);
  CHECK(est.parameters.total > 0);
  CHECK(std::isfinite(est.peak_bytes));
  CHECK(est.peak_bytes > 0);
  CHECK(est.peak_bytes <= 1e18);
  CHECK(est.verdict == lg::estimate::Verdict::oom);
}

TEST_CASE("error band: a feature with few or no validation records is not narrowed by others")
{
  // Fine-grained offloading has one validation record (its error is the
  // band); LoRA has none in the validation data (the accuracy bound).
  auto spec = lg::testing::minimal_job_spec();
  spec.training.fine_grained_activation_offloading = true;
  spec.training.offload_modules = {"attn_norm"};
  const auto offload = lg::estimate::error_band(spec);
  CHECK(offload.source == "offload");
  CHECK(offload.relative > lg::estimate::error_band(lg::testing::minimal_job_spec()).relative);
  auto lora = lg::testing::minimal_job_spec();
  lora.peft.method = "lora";
  const auto unvalidated = lg::estimate::error_band(lora);
  CHECK(unvalidated.source == "unvalidated:lora");
  CHECK(unvalidated.relative == lg::estimate::k_unvalidated_band);
  CHECK(unvalidated.records == 0);
  // Whole-layer offloading (--cpu-offloading-num-layers) is another mechanism
  // than fine-grained offloading: the fine-grained record does not set its band.
  auto layers = lg::testing::minimal_job_spec();
  layers.training.cpu_offloading_layers = 2;
  const auto layer_offload = lg::estimate::error_band(layers);
  CHECK(layer_offload.source == "unvalidated:layer_offload");
  CHECK(layer_offload.relative == lg::estimate::k_unvalidated_band);
  CHECK(layer_offload.relative < offload.relative);
}

TEST_CASE("error band: the stage carries band x peak and the verdict uses the upper edge")
{
  const auto spec = lg::testing::llama3_70b_sft();
  const auto band = lg::estimate::error_band(spec);
  CHECK(band.relative > 0);
  const auto est = run(spec);
  CHECK(est.stages.front().band_bytes ==
        doctest::Approx(band.relative * est.stages.front().device_peak_bytes));
  CHECK(lg::estimate::feature_mix(lg::estimate::feature_groups(spec)) == "pp_vpp+fp8");
}

// The groups' order makes the mix names of error_band_data.inc; error_band
// keeps each mix's band per thread, so asking again gives the same band.
TEST_CASE("error band: every group, in the fixed order; asked again, the same band")
{
  auto spec = lg::testing::minimal_job_spec();
  spec.parallelism.pp = 2;
  spec.parallelism.cp = 2;
  spec.model.moe = lg::config::MoeSpec{};
  spec.model.mla = lg::config::MlaSpec{};
  spec.model.mtp_num_layers = 1;
  spec.peft.method = "lora";
  spec.training.precision = lg::config::Precision::fp8_cs;
  spec.training.recompute.granularity = lg::config::RecomputeGranularity::full;
  spec.training.cpu_offloading_layers = 1;
  spec.training.cuda_graphs = lg::config::CudaGraphs::local;
  spec.training.fsdp = lg::config::Fsdp::megatron;
  spec.training.fine_grained_activation_offloading = true;
  spec.training.optimizer.cpu_offload_fraction = 0.5;
  CHECK(lg::estimate::feature_mix(lg::estimate::feature_groups(spec))
        == "pp_vpp+cp+moe_ep+mla+mtp+lora+fp8+recompute+offload+cuda_graphs+fsdp+layer_offload+optimizer_offload");
  const auto first = lg::estimate::error_band(spec);
  (void)lg::estimate::error_band(lg::testing::minimal_job_spec());
  const auto again = lg::estimate::error_band(spec);
  CHECK(again.relative == first.relative);
  CHECK(again.source == first.source);
  CHECK(again.records == first.records);
}

TEST_CASE("dropout: Megatron's generic default is 0.1")
{
  // transformer_config.py hidden_dropout / attention_dropout = 0.1.
  const lg::config::ModelSpec m;
  CHECK(m.hidden_dropout == doctest::Approx(0.1));
  CHECK(m.attention_dropout == doctest::Approx(0.1));
}

TEST_SUITE_END();
