// A JobSpec written as Megatron Bridge ConfigContainer overrides
// (bridge_settings_from_job, `convert --to bridge-overrides`): the inverse of
// apply_bridge_settings for every key it maps. Keys: Megatron-Bridge
// src/megatron/bridge/training/config.py, mixed_precision.py (recipe names).
#include "config/bridge_keys.hpp"

#include <fmt/format.h>

#include <map>

namespace lg::config {

std::vector<BridgeSetting> bridge_settings_from_job(const JobSpec& spec)
{
  std::vector<BridgeSetting> out;
  auto put = [&](std::string key, std::string value) { out.push_back(BridgeSetting{std::move(key), std::move(value), {}}); };
  auto b = [](bool v) { return std::string(v ? "true" : "false"); };
  auto list = [](const std::vector<std::string>& items) { return fmt::format("[{}]", fmt::join(items, ",")); };
  const auto& m = spec.model;
  put("model.num_layers", std::to_string(m.num_layers));
  put("model.hidden_size", std::to_string(m.hidden_size));
  put("model.ffn_hidden_size", std::to_string(m.ffn_hidden_size));
  put("model.num_attention_heads", std::to_string(m.num_attention_heads));
  put("model.num_query_groups", m.num_query_groups > 0 ? std::to_string(m.num_query_groups) : "null");
  put("model.kv_channels", m.kv_channels > 0 ? std::to_string(m.kv_channels) : "null");
  put("model.vocab_size", std::to_string(m.vocab_size));
  put("model.make_vocab_size_divisible_by", std::to_string(m.make_vocab_size_divisible_by));
  put("model.seq_length", std::to_string(m.seq_length));
  if (m.max_position_embeddings > 0) {
    put("model.max_position_embeddings", std::to_string(m.max_position_embeddings));
  }
  const bool gated = m.activation == Activation::swiglu || m.activation == Activation::geglu;
  put("model.activation_func", m.activation == Activation::squared_relu ? "squared_relu"
                               : m.activation == Activation::swiglu     ? "silu"
                                                                        : "gelu");
  put("model.gated_linear_unit", b(gated));
  put("model.normalization", m.normalization == Normalization::rms_norm ? "RMSNorm" : "LayerNorm");
  put("model.add_bias_linear", b(m.add_bias_linear));
  put("model.add_qkv_bias", b(m.add_qkv_bias));
  put("model.qk_layernorm", b(m.qk_layernorm));
  put("model.share_embeddings_and_output_weights", b(!m.untie_embeddings_and_output_weights));
  put("model.position_embedding_type", m.position_embedding_type);
  put("model.hidden_dropout", fmt::format("{}", m.hidden_dropout));
  put("model.attention_dropout", fmt::format("{}", m.attention_dropout));
  put("model.mtp_num_layers", m.mtp_num_layers > 0 ? std::to_string(m.mtp_num_layers) : "null");
  if (m.moe) {
    put("model.num_moe_experts", std::to_string(m.moe->num_experts));
    put("model.moe_ffn_hidden_size", std::to_string(m.moe->moe_ffn_hidden_size));
    put("model.moe_router_topk", std::to_string(m.moe->router_topk));
    put("model.moe_shared_expert_intermediate_size",
        m.moe->shared_expert_intermediate_size > 0 ? std::to_string(m.moe->shared_expert_intermediate_size) : "null");
    if (m.moe->layer_pattern.empty()) {
      put("model.moe_layer_freq", "1");
    } else if (m.moe->layer_pattern.size() == 1 && m.moe->layer_pattern[0] < 0) {
      put("model.moe_layer_freq", std::to_string(-m.moe->layer_pattern[0]));  // not yet expanded
    } else {
      std::vector<std::string> items;
      for (int v : m.moe->layer_pattern) {
        items.push_back(std::to_string(v));
      }
      put("model.moe_layer_freq", list(items));
    }
    put("model.moe_token_dispatcher_type", m.moe->token_dispatcher);
    if (m.moe->token_dispatcher == "flex") {
      put("model.moe_flex_dispatcher_backend", m.moe->flex_backend);
      if (m.moe->deepep_num_sms > 0) {
        put("model.moe_deepep_num_sms", std::to_string(m.moe->deepep_num_sms));
      }
    }
    if (m.moe->enable_deepep) {
      put("model.moe_enable_deepep", "true");
    }
    put("model.moe_router_enable_expert_bias", b(m.moe->router_bias));
    put("model.moe_shared_expert_gate", b(m.moe->shared_expert_gate));
    put("model.moe_grouped_gemm", b(m.moe->grouped_gemm));
  }
  if (m.mla) {
    put("model.multi_latent_attention", "true");
    put("model.q_lora_rank", m.mla->q_lora_rank > 0 ? std::to_string(m.mla->q_lora_rank) : "null");
    put("model.kv_lora_rank", std::to_string(m.mla->kv_lora_rank));
    put("model.qk_head_dim", std::to_string(m.mla->qk_head_dim));
    put("model.qk_pos_emb_head_dim", std::to_string(m.mla->qk_pos_emb_head_dim));
    put("model.v_head_dim", std::to_string(m.mla->v_head_dim));
  }
  const auto& p = spec.parallelism;
  put("model.tensor_model_parallel_size", std::to_string(p.tp));
  put("model.pipeline_model_parallel_size", std::to_string(p.pp));
  put("model.virtual_pipeline_model_parallel_size", p.vpp ? std::to_string(*p.vpp) : "null");
  put("model.context_parallel_size", std::to_string(p.cp));
  put("model.expert_model_parallel_size", std::to_string(p.ep));
  put("model.expert_tensor_parallel_size", p.etp ? std::to_string(*p.etp) : "null");
  put("model.sequence_parallel", b(p.sequence_parallel));
  if (p.first_stage_layers) {
    put("model.num_layers_in_first_pipeline_stage", std::to_string(*p.first_stage_layers));
  }
  if (p.last_stage_layers) {
    put("model.num_layers_in_last_pipeline_stage", std::to_string(*p.last_stage_layers));
  }
  const auto& t = spec.training;
  put("train.micro_batch_size", std::to_string(t.micro_batch_size));
  put("train.global_batch_size", std::to_string(t.global_batch_size));
  static const std::map<Precision, std::string> recipes = {
    {Precision::bf16, "bf16_mixed"}, {Precision::fp16, "fp16_mixed"},
    {Precision::fp8_delayed, "bf16_with_fp8_delayed_scaling_mixed"}, {Precision::fp8_cs, "bf16_with_fp8_current_scaling_mixed"},
    {Precision::fp8_blockwise, "bf16_with_fp8_subchannel_scaling_mixed"}, {Precision::mxfp8, "bf16_with_mxfp8_mixed"},
    {Precision::nvfp4, "bf16_with_nvfp4_mixed"}};
  put("mixed_precision", recipes.at(t.precision));
  put("model.recompute_granularity", t.recompute.granularity == RecomputeGranularity::none ? "null" : to_string(t.recompute.granularity));
  if (t.recompute.granularity == RecomputeGranularity::selective && !t.recompute.modules.empty()) {
    put("model.recompute_modules", list(t.recompute.modules));
  }
  if (t.recompute.granularity == RecomputeGranularity::full) {
    put("model.recompute_method", t.recompute.method == RecomputeMethod::block ? "block" : "uniform");
    put("model.recompute_num_layers", std::to_string(t.recompute.num_layers));
  }
  put("model.attention_backend", t.attention_backend == AttentionBackend::flash ? "flash"
                                 : t.attention_backend == AttentionBackend::unfused ? "unfused"
                                                                                    : "fused");
  put("ddp.use_distributed_optimizer", b(t.distributed_optimizer));
  put("optimizer.use_distributed_optimizer", b(t.distributed_optimizer));
  put("optimizer.optimizer", t.optimizer.name);
  put("optimizer.use_precision_aware_optimizer", b(t.optimizer.precision_aware));
  put("ddp.grad_reduce_in_fp32", b(t.optimizer.grad_dtype == "fp32"));
  if (t.optimizer.state_dtype != "fp32") {
    put("optimizer.exp_avg_dtype", t.optimizer.state_dtype);
    put("optimizer.exp_avg_sq_dtype", t.optimizer.state_dtype);
  }
  if (t.optimizer.cpu_offload_fraction > 0) {
    put("optimizer.optimizer_cpu_offload", "true");
    put("optimizer.optimizer_offload_fraction", fmt::format("{}", t.optimizer.cpu_offload_fraction));
  }
  if (t.fsdp == Fsdp::megatron) {
    put("ddp.use_megatron_fsdp", "true");
    put("ddp.data_parallel_sharding_strategy", t.fsdp_sharding);
  } else if (t.fsdp == Fsdp::torch) {
    put("dist.use_torch_fsdp2", "true");
  }
  if (t.cpu_offloading_layers > 0) {
    put("model.cpu_offloading", "true");
    put("model.cpu_offloading_num_layers", std::to_string(t.cpu_offloading_layers));
  }
  if (t.fine_grained_activation_offloading) {
    put("model.fine_grained_activation_offloading", "true");
  }
  put("model.cuda_graph_impl", to_string(t.cuda_graphs));
  if (!t.cuda_graph_modules.empty()) {
    put("model.cuda_graph_scope", list(t.cuda_graph_modules));
  }
  put("ddp.nccl_ub", b(t.nccl_ub));
  put("comm_overlap.tp_comm_overlap", b(t.tp_comm_overlap));
  put("ddp.overlap_grad_reduce", b(t.overlap_grad_reduce));
  put("ddp.overlap_param_gather", b(t.overlap_param_gather));
  put("comm_overlap.overlap_moe_expert_parallel_comm", b(t.overlap_moe_expert_parallel_comm));
  put("comm_overlap.delay_wgrad_compute", b(t.delay_wgrad_compute));
  put("mixed_precision.fp8_param_gather", b(t.fp8_param_gather));
  if (spec.peft.method == "lora") {
    put("peft", "lora");
    put("peft.dim", std::to_string(spec.peft.rank));
    put("peft.alpha", fmt::format("{}", spec.peft.alpha));
    put("peft.target_modules", list(spec.peft.targets));
    put("peft.sequence_parallel_input_regather", b(spec.peft.sequence_parallel_input_regather));
  }
  for (const auto& [name, value] : spec.env) {
    put("env_vars." + name, value);
  }
  return out;
}

} // namespace lg::config
