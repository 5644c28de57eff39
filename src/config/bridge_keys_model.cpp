// The model provider's ConfigContainer keys (parallelism, shape, MoE, MLA) ->
// JobSpec fields. Field names and meanings: Megatron-LM
// megatron/core/model_parallel_config.py, transformer/transformer_config.py;
// Megatron-Bridge src/megatron/bridge/models/gpt_provider.py, mla_provider.py.
#include "config/bridge_mapping.hpp"

namespace lg::config::bridge {

void add_model_keys(KeyTable& t)
{
  auto add = [&](std::string key, std::string job_key, Setter set) {
    t[std::move(key)] = Entry{{std::move(job_key)}, std::move(set)};
  };
  // Parallelism (ModelParallelConfig, on the model provider).
  add("model.tensor_model_parallel_size", "parallelism.tp", integer(LG_BRIDGE_AT(parallelism.tp), 1, 1024));
  add("model.pipeline_model_parallel_size", "parallelism.pp", integer(LG_BRIDGE_AT(parallelism.pp), 1, 1024));
  add("model.virtual_pipeline_model_parallel_size", "parallelism.vpp", integer(LG_BRIDGE_AT(parallelism.vpp), 1, 1024, true));
  add("model.context_parallel_size", "parallelism.cp", integer(LG_BRIDGE_AT(parallelism.cp), 1, 1024));
  add("model.expert_model_parallel_size", "parallelism.ep", integer(LG_BRIDGE_AT(parallelism.ep), 1, 4096));
  add("model.expert_tensor_parallel_size", "parallelism.etp", integer(LG_BRIDGE_AT(parallelism.etp), 1, 1024, true));
  add("model.sequence_parallel", "parallelism.sequence_parallel", boolean(LG_BRIDGE_AT(parallelism.sequence_parallel)));
  add("model.num_layers_in_first_pipeline_stage", "parallelism.first_stage_layers", integer(LG_BRIDGE_AT(parallelism.first_stage_layers), 0, 10000, true));
  add("model.num_layers_in_last_pipeline_stage", "parallelism.last_stage_layers", integer(LG_BRIDGE_AT(parallelism.last_stage_layers), 0, 10000, true));
  // Model shape (TransformerConfig / GPTModelProvider); ranges as schema.cpp.
  add("model.num_layers", "model.num_layers", integer(LG_BRIDGE_AT(model.num_layers), 1, 10000));
  add("model.hidden_size", "model.hidden_size", integer(LG_BRIDGE_AT(model.hidden_size), 1, 1 << 20));
  add("model.ffn_hidden_size", "model.ffn_hidden_size", integer(LG_BRIDGE_AT(model.ffn_hidden_size), 1, 1 << 22, true));
  add("model.num_attention_heads", "model.num_attention_heads", integer(LG_BRIDGE_AT(model.num_attention_heads), 1, 65536));
  add("model.num_query_groups", "model.num_query_groups", integer(LG_BRIDGE_AT(model.num_query_groups), 1, 65536, true));
  add("model.kv_channels", "model.kv_channels", integer(LG_BRIDGE_AT(model.kv_channels), 1, 65536, true));
  add("model.vocab_size", "model.vocab_size", integer(LG_BRIDGE_AT(model.vocab_size), 1, 100000000));
  add("model.make_vocab_size_divisible_by", "model.make_vocab_size_divisible_by", integer(LG_BRIDGE_AT(model.make_vocab_size_divisible_by), 1, 1 << 20));
  add("model.seq_length", "model.seq_length", integer(LG_BRIDGE_AT(model.seq_length), 1, 1 << 24));
  add("dataset.seq_length", "model.seq_length", integer(LG_BRIDGE_AT(model.seq_length), 1, 1 << 24));
  add("dataset.sequence_length", "model.seq_length", integer(LG_BRIDGE_AT(model.seq_length), 1, 1 << 24));
  add("model.max_position_embeddings", "model.max_position_embeddings", integer(LG_BRIDGE_AT(model.max_position_embeddings), 1, 1 << 24, true));
  add("model.normalization", "model.normalization",
      choice({"RMSNorm", "LayerNorm"}, [](JobSpec& s, std::size_t i) { s.model.normalization = static_cast<Normalization>(i); }));
  add("model.add_bias_linear", "model.add_bias_linear", boolean(LG_BRIDGE_AT(model.add_bias_linear)));
  add("model.add_qkv_bias", "model.add_qkv_bias", boolean(LG_BRIDGE_AT(model.add_qkv_bias)));
  add("model.qk_layernorm", "model.qk_layernorm", boolean(LG_BRIDGE_AT(model.qk_layernorm)));
  add("model.share_embeddings_and_output_weights", "model.untie_embeddings_and_output_weights",
      boolean(LG_BRIDGE_AT(model.untie_embeddings_and_output_weights), true));
  add("model.position_embedding_type", "model.position_embedding_type",
      choice({"rope", "learned_absolute", "none", "yarn", "mrope"},
             [](JobSpec& s, std::size_t i) { s.model.position_embedding_type = std::vector<std::string>{"rope", "learned_absolute", "none", "yarn", "mrope"}[i]; }));
  add("model.hidden_dropout", "model.hidden_dropout", number(LG_BRIDGE_AT(model.hidden_dropout), 0.0, 1.0));
  add("model.attention_dropout", "model.attention_dropout", number(LG_BRIDGE_AT(model.attention_dropout), 0.0, 1.0));
  add("model.mtp_num_layers", "model.mtp_num_layers", integer(LG_BRIDGE_AT(model.mtp_num_layers), 0, 64, true));
  // MoE.
  add("model.num_moe_experts", "model.moe.num_experts", [](JobSpec& s, const Value& v) -> std::string {
    if (v.null) {
      s.model.moe.reset();
      return {};
    }
    const auto n = to_integer(v);
    if (!n || *n < 1 || *n > (1 << 16)) {
      return fmt::format("must be an integer between 1 and 65536 or null, got {}", describe(v));
    }
    ensure_moe(s).num_experts = static_cast<int>(*n);
    return {};
  });
  auto moe_int = [&](std::string key, std::string job_key, int MoeSpec::*field, long long min, long long max) {
    add(std::move(key), std::move(job_key), [=](JobSpec& s, const Value& v) -> std::string {
      const auto n = v.null && min == 0 ? std::optional<long long>(0) : to_integer(v);
      if (!n || *n < min || *n > max) {
        return fmt::format("must be an integer between {} and {}, got {}", min, max, describe(v));
      }
      ensure_moe(s).*field = static_cast<int>(*n);
      return {};
    });
  };
  moe_int("model.moe_ffn_hidden_size", "model.moe.moe_ffn_hidden_size", &MoeSpec::moe_ffn_hidden_size, 1, 1 << 22);
  moe_int("model.moe_router_topk", "model.moe.router_topk", &MoeSpec::router_topk, 1, 1024);
  moe_int("model.moe_shared_expert_intermediate_size", "model.moe.shared_expert_intermediate_size",
          &MoeSpec::shared_expert_intermediate_size, 0, 1 << 22);
  add("model.moe_layer_freq", "model.moe.layer_freq", set_layer_freq);
  add("model.moe_token_dispatcher_type", "model.moe.token_dispatcher",
      choice({"alltoall", "allgather", "flex"}, [](JobSpec& s, std::size_t i) { ensure_moe(s).token_dispatcher = std::vector<std::string>{"alltoall", "allgather", "flex"}[i]; }));
  add("model.moe_flex_dispatcher_backend", "model.moe.flex_backend",
      choice({"deepep", "hybridep", "ncclep"}, [](JobSpec& s, std::size_t i) { ensure_moe(s).flex_backend = std::vector<std::string>{"deepep", "hybridep", "ncclep"}[i]; }));
  // Deprecated, read as given (config::flex_backend_of resolves it).
  add("model.moe_enable_deepep", "model.moe.enable_deepep",
      [](JobSpec& s, const Value& v) -> std::string { const auto b = to_bool(v); if (!b) { return fmt::format("must be true or false, got {}", describe(v)); } ensure_moe(s).enable_deepep = *b; return {}; });
  moe_int("model.moe_deepep_num_sms", "model.moe.deepep_num_sms", &MoeSpec::deepep_num_sms, 2, 1024);
  // Its successor (Megatron-LM TransformerConfig.moe_flex_dispatcher_num_sms).
  moe_int("model.moe_flex_dispatcher_num_sms", "model.moe.deepep_num_sms", &MoeSpec::deepep_num_sms, 2, 1024);
  add("model.moe_router_enable_expert_bias", "model.moe.router_bias",
      [](JobSpec& s, const Value& v) -> std::string { const auto b = to_bool(v); if (!b) { return fmt::format("must be true or false, got {}", describe(v)); } ensure_moe(s).router_bias = *b; return {}; });
  add("model.moe_grouped_gemm", "model.moe.grouped_gemm",
      [](JobSpec& s, const Value& v) -> std::string { const auto b = to_bool(v); if (!b) { return fmt::format("must be true or false, got {}", describe(v)); } ensure_moe(s).grouped_gemm = *b; return {}; });
  add("model.moe_shared_expert_gate", "model.moe.shared_expert_gate",
      [](JobSpec& s, const Value& v) -> std::string { const auto b = to_bool(v); if (!b) { return fmt::format("must be true or false, got {}", describe(v)); } ensure_moe(s).shared_expert_gate = *b; return {}; });
  // Multi-latent attention (MLATransformerConfig).
  add("model.multi_latent_attention", "model.mla", [](JobSpec& s, const Value& v) -> std::string {
    const auto b = to_bool(v);
    if (!b) {
      return fmt::format("must be true or false, got {}", describe(v));
    }
    if (*b) {
      ensure_mla(s);
    } else {
      s.model.mla.reset();
    }
    return {};
  });
  auto mla_int = [&](std::string key, std::string job_key, int MlaSpec::*field, long long min) {
    add(std::move(key), std::move(job_key), [=](JobSpec& s, const Value& v) -> std::string {
      const auto n = v.null && min == 0 ? std::optional<long long>(0) : to_integer(v);
      if (!n || *n < min || *n > (1 << 20)) {
        return fmt::format("must be an integer between {} and {}, got {}", min, 1 << 20, describe(v));
      }
      ensure_mla(s).*field = static_cast<int>(*n);
      return {};
    });
  };
  mla_int("model.q_lora_rank", "model.mla.q_lora_rank", &MlaSpec::q_lora_rank, 0);
  mla_int("model.kv_lora_rank", "model.mla.kv_lora_rank", &MlaSpec::kv_lora_rank, 1);
  mla_int("model.qk_head_dim", "model.mla.qk_head_dim", &MlaSpec::qk_head_dim, 1);
  mla_int("model.qk_pos_emb_head_dim", "model.mla.qk_pos_emb_head_dim", &MlaSpec::qk_pos_emb_head_dim, 0);
  mla_int("model.v_head_dim", "model.mla.v_head_dim", &MlaSpec::v_head_dim, 1);
}

} // namespace lg::config::bridge
