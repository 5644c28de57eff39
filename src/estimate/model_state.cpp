#include "estimate/model_state.hpp"

#include <algorithm>

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

// Bytes per parameter of the optimizer's own state (fp32 master copy plus
// moments), before sharding. SGD keeps one momentum buffer, Adam two.
double optimizer_bytes_per_param(const config::TrainingSpec& t)
{
  const double moment = t.optimizer.precision_aware ? dtype_bytes(t.optimizer.state_dtype) : 4.0;
  const double moments = t.optimizer.name == "sgd" ? moment : 2 * moment;
  return 4.0 + moments;
}

double grad_bytes_per_param(const config::TrainingSpec& t)
{
  return t.optimizer.grad_dtype == "fp32" ? 4.0 : 2.0;
}

struct Sharding
{
  double weights = 1;
  double grads = 1;
  double optimizer = 1;
};

// What each DP shard group of size n divides. The distributed optimizer only
// shards the optimizer state (the grad buffer is reduce-scattered in place and
// stays full size); FSDP's strategies add grads and then params.
Sharding sharding(const config::JobSpec& spec, int n)
{
  const auto& t = spec.training;
  Sharding s;
  const double group = std::max(1, n);
  if (t.fsdp != Fsdp::none) {
    const std::string& mode = t.fsdp == Fsdp::torch ? std::string("optim_grads_params")
                                                    : t.fsdp_sharding;
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

} // namespace

int dense_shard_group(const config::JobSpec& spec)
{
  return std::max(1, config::data_parallel_size(spec) * std::max(1, spec.parallelism.cp));
}

int expert_shard_group(const config::JobSpec& spec)
{
  return std::max(1, config::expert_data_parallel_size(spec));
}

ModelStateBytes model_state_bytes(const config::JobSpec& spec, const StageParameters& params)
{
  const auto& t = spec.training;
  ModelStateBytes out;
  const Sharding dense = sharding(spec, dense_shard_group(spec));
  const Sharding expert = sharding(spec, expert_shard_group(spec));
  const bool fp8 = config::is_fp8(t.precision) || config::is_fp4(t.precision);
  const double weight_bytes = t.precision == config::Precision::bf16 ||
                                      t.precision == config::Precision::fp16 || !t.fp8_param_gather
                                  ? 2.0
                                  : 1.0;
  // Frozen LoRA base: bf16 weights only (no main grads, no optimizer).
  out.weights = weight_bytes * (params.dense / dense.weights + params.experts / expert.weights);
  if (fp8) {
    // TE caches the quantized weight across the microbatches of a step; with
    // fp8 params the weight itself is quantized and only the transposed
    // (column-wise) copy is extra. Either way one extra byte per GEMM weight.
    out.fp8_weight_cache = params.linear / dense.weights + params.expert_linear / expert.weights;
  }
  const double trainable_dense = lora(spec) ? params.lora : params.dense;
  const double trainable_experts = lora(spec) ? 0.0 : params.experts;
  if (lora(spec)) {
    out.weights += 2.0 * params.lora;
  }
  const double g = grad_bytes_per_param(t);
  out.gradients = g * (trainable_dense / dense.grads + trainable_experts / expert.grads);
  const double keep = 1.0 - std::clamp(t.optimizer.cpu_offload_fraction, 0.0, 1.0);
  const double o = optimizer_bytes_per_param(t) * keep;
  out.optimizer_state =
      o * (trainable_dense / dense.optimizer + trainable_experts / expert.optimizer);
  if (dense.weights > 1 || expert.weights > 1) {
    // FSDP all-gathers one layer ahead while computing the current one.
    out.fsdp_gather_buffers = 2.0 * weight_bytes * params.largest_layer;
  }
  return out;
}

} // namespace lg::estimate
