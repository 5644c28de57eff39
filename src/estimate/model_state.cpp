#include "estimate/model_state.hpp"

#include <algorithm>
#include <string_view>

namespace lg::estimate {
namespace {

using config::Fsdp;

double dtype_bytes(const std::string& dtype)
{
  if (dtype == "fp32") {
    return 4;
  }
  if (dtype == "fp8") {
    return 1;
  }
  return 2;  // bf16, fp16
}

// Per-parameter optimizer state before sharding, split into the master copy
// (allocated with the optimizer) and the moments (allocated at the first
// step). Megatron core/optimizer/__init__.py: Adam exp_avg + exp_avg_sq, SGD
// one momentum buffer, Lion exp_avg; Muon keeps one momentum buffer for the
// 2-D linear weights it manages and routes the rest to Adam
// (emerging_optimizers.py _default_param_overrides_factory).
StateRates::Optimizer optimizer_bytes(const config::JobSpec& spec, bool linear)
{
  const auto& t = spec.training;
  const auto& o = t.optimizer;
  StateRates::Optimizer b;
  const double moment = o.precision_aware ? dtype_bytes(o.state_dtype) : 4.0;
  int moments = 2;
  if (o.name == "sgd" || o.name == "lion" ||
      ((o.name == "muon" || o.name == "dist_muon") && linear)) {
    moments = 1;
  }
  b.moments = moments * moment;
  // TE FusedAdam with master_weights keeps only the 16-bit remainder of the
  // fp32 master next to bf16 weights (store_param_remainders); Megatron hands
  // TE the master weights unless fp8 primary weights other than delayed
  // scaling are in use (use_precision_aware_optimizer_no_fp8_or_ds_fp8).
  const bool te_master = o.precision_aware && o.name == "adam" &&
                         (!t.fp8_param_gather || t.precision == config::Precision::fp8_delayed) &&
                         t.precision != config::Precision::fp16;
  b.master = te_master && o.store_param_remainders ? 2.0 : 4.0;
  return b;
}

double grad_bytes_per_param(const config::TrainingSpec& t)
{
  return t.optimizer.grad_dtype == "fp32" ? 4.0 : 2.0;
}

// What each DP shard group of size n divides. The distributed optimizer only
// shards the optimizer state (the grad buffer is reduce-scattered in place and
// stays full size); FSDP's strategies add grads and then params.
StateRates::Sharding sharding(const config::JobSpec& spec, int n)
{
  const auto& t = spec.training;
  StateRates::Sharding s;
  const double group = std::max(1, n);
  if (t.fsdp != Fsdp::none) {
    const std::string_view mode = t.fsdp == Fsdp::torch ? std::string_view("optim_grads_params")
                                                        : std::string_view(t.fsdp_sharding);
    if (mode == "optim" || mode == "optim_grads" || mode == "optim_grads_params") {
      s.optimizer = group;
    }
    if (mode == "optim_grads" || mode == "optim_grads_params") {
      s.grads = group;
    }
    if (mode == "optim_grads_params") {
      s.weights = group;
    }
    return s;
  }
  if (t.distributed_optimizer) {
    s.optimizer = group;
  }
  return s;
}

bool lora(const config::JobSpec& spec)
{
  return spec.peft.method == "lora";
}

bool frozen(const config::JobSpec& spec, const char* part)
{
  const auto& f = spec.training.frozen;
  return std::find(f.begin(), f.end(), part) != f.end();
}

int instances(const config::JobSpec& spec)
{
  return std::max(1, spec.training.optimizer.distributed_instances);
}

// Megatron's optimizers step on fp32 gradients: _copy_model_grads_to_main_grads
// sets main_param.grad = main_grad.float() (core/optimizer/optimizer.py,
// Float16OptimizerWithFloat16Params, over every parameter) or
// shard_main_param.grad = shard_model_grad.float() (distrib_optimizer.py, over
// this rank's shard). .float() copies a bf16/fp16 buffer and is a no-op on an
// fp32 one. The precision-aware optimizer hands TE FusedAdam the bf16 shard as
// decoupled_grad, and Megatron-FSDP returns before the copy. The copies live
// until zero_grad at the start of the next train_step.
bool steps_on_grad_copy(const config::JobSpec& spec)
{
  const auto& t = spec.training;
  // use_precision_aware_optimizer_no_fp8_or_ds_fp8: fp8 primary weights other
  // than delayed scaling take the .float() path even when precision-aware.
  const bool in_place = t.optimizer.precision_aware &&
                        (!t.fp8_param_gather || t.precision == config::Precision::fp8_delayed ||
                         !config::is_fp8(t.precision));
  return !(t.optimizer.grad_dtype == "fp32" || in_place || t.fsdp != Fsdp::none);
}

double step_grad_copy_bytes(const StateRates& rates, double dense_params, double expert_params)
{
  if (!rates.step_grad_copy) {
    return 0;
  }
  return 4.0 * (dense_params / rates.dense.optimizer + expert_params / rates.expert.optimizer);
}

// Bytes per GEMM weight of the quantized copy TE keeps beside the weight
// under an FP8/FP4 recipe. Without fp8 primary weights that is the cached
// quantized weight; with them, the weight is already quantized and only a
// second (column-wise) layout is extra: Hopper's FP8 GEMMs take TN operands
// only, so a tensor-scaled Float8Tensor keeps its transpose. From compute
// capability 10.0 on (B200/GB200/B300/GB300) TE's FP8 GEMMs accept non-TN
// layouts and a tensor-scaled (delayed or current scaling) Float8Tensor serves
// both usages from its one data buffer and drops the transpose:
// TransformerEngine transformer_engine/pytorch/utils.py:658-663
// (is_non_tn_fp8_gemm_supported), tensor/storage/float8_tensor_storage.py:292-297
// (update_usage: needs_data_transpose = False). MXFP8 and blockwise scaling
// quantize each direction with its own scales and keep both.
double fp8_cache_bytes(const config::JobSpec& spec)
{
  const auto& t = spec.training;
  if (!config::is_fp8(t.precision) && !config::is_fp4(t.precision)) {
    return 0;
  }
  const bool tensor_scaled = t.precision == config::Precision::fp8_delayed || t.precision == config::Precision::fp8_cs;
  const bool non_tn = spec.cluster.gpu_info.generation == config::GpuGeneration::blackwell;
  return tensor_scaled && non_tn && t.fp8_param_gather ? 0.0 : 1.0;
}

} // namespace

int dense_shard_group(const config::JobSpec& spec)
{
  const int group = std::max(1, config::data_parallel_size(spec) * std::max(1, spec.parallelism.cp));
  return std::max(1, group / instances(spec));
}

int expert_shard_group(const config::JobSpec& spec)
{
  return std::max(1, std::max(1, config::expert_data_parallel_size(spec)) / instances(spec));
}

StateRates state_rates(const config::JobSpec& spec)
{
  const auto& t = spec.training;
  StateRates r;
  r.dense = sharding(spec, dense_shard_group(spec));
  r.expert = sharding(spec, expert_shard_group(spec));
  r.fp8 = config::is_fp8(t.precision) || config::is_fp4(t.precision);
  r.fp8_cache_bytes = fp8_cache_bytes(spec);
  // fp8 primary weights (--fp8-param-gather) apply to the TE GEMM weights
  // only; embeddings, output layer, norms and routers stay bf16.
  r.linear_bytes = r.fp8 && t.fp8_param_gather ? 1.0 : 2.0;
  r.lora = lora(spec);
  r.frozen_language_model = frozen(spec, "language_model");
  r.grad_bytes = grad_bytes_per_param(t);
  r.keep = 1.0 - std::clamp(t.optimizer.cpu_offload_fraction, 0.0, 1.0);
  r.linear = optimizer_bytes(spec, true);
  r.other = optimizer_bytes(spec, false);
  r.step_grad_copy = steps_on_grad_copy(spec);
  return r;
}

ModelStateBytes model_state_bytes(const config::JobSpec& spec, const StageParameters& params)
{
  return model_state_bytes(state_rates(spec), params);
}

ModelStateBytes model_state_bytes(const StateRates& r, const StageParameters& params)
{
  ModelStateBytes out;
  const StateRates::Sharding& dense = r.dense;
  const StateRates::Sharding& expert = r.expert;
  const double linear_bytes = r.linear_bytes;
  const double other_dense = std::max(0.0, params.dense - params.linear);
  const double other_experts = std::max(0.0, params.experts - params.expert_linear);
  const double weights_dense = linear_bytes * params.linear + 2.0 * other_dense;
  const double weights_experts = linear_bytes * params.expert_linear + 2.0 * other_experts;
  out.weights = weights_dense / dense.weights + weights_experts / expert.weights;
  if (r.fp8) {
    // TE caches the quantized weight across the microbatches of a step
    // (fp8_cache_bytes: one byte per GEMM weight, none for tensor-scaled fp8
    // primary weights on Blackwell).
    out.fp8_weight_cache = r.fp8_cache_bytes * (params.linear / dense.weights + params.expert_linear / expert.weights);
  }
  // Trainable parameters: LoRA trains only its adapters; frozen parts have
  // no main gradient and no optimizer state.
  double trainable_linear = r.lora ? 0.0 : params.linear;
  double trainable_other = r.lora ? params.lora : other_dense;
  double trainable_experts = r.lora ? 0.0 : params.experts;
  if (r.frozen_language_model) {
    trainable_linear = 0;
    trainable_other = r.lora ? params.lora : 0.0;
    trainable_experts = 0;
  }
  if (r.lora) {
    out.weights += 2.0 * params.lora;
  }
  const double g = r.grad_bytes;
  out.gradients = g * ((trainable_linear + trainable_other) / dense.grads +
                       trainable_experts / expert.grads);
  const double keep = r.keep;
  const StateRates::Optimizer& lin = r.linear;
  const StateRates::Optimizer& rest = r.other;
  const double per_dense = (trainable_linear * (lin.master + lin.moments) +
                            trainable_other * (rest.master + rest.moments)) / dense.optimizer;
  const double per_expert = trainable_experts * (lin.master + lin.moments) / expert.optimizer;
  out.optimizer_state = keep * (per_dense + per_expert);
  out.optimizer_moments =
      keep * ((trainable_linear * lin.moments + trainable_other * rest.moments) / dense.optimizer +
              trainable_experts * lin.moments / expert.optimizer);
  out.step_grad_copy = keep * step_grad_copy_bytes(r, trainable_linear + trainable_other, trainable_experts);
  if (dense.weights > 1 || expert.weights > 1) {
    // FSDP all-gathers one layer ahead while computing the current one.
    out.fsdp_gather_buffers = 2.0 * linear_bytes * params.largest_layer;
  }
  return out;
}

} // namespace lg::estimate
