// ConfigContainer key -> JobSpec field. Field names and meanings:
// Megatron-Bridge src/megatron/bridge/training/config.py (ConfigContainer),
// training/mixed_precision.py (MixedPrecisionConfig and its named recipes),
// training/comm_overlap.py (CommOverlapConfig), peft/lora.py (LoRA);
// Megatron-LM megatron/core/transformer/transformer_config.py,
// model_parallel_config.py, optimizer/optimizer_config.py,
// distributed/distributed_data_parallel_config.py.
#include "config/bridge_keys.hpp"

#include "config/not_modelled.hpp"

#include "util/edit_distance.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cctype>
#include <functional>
#include <limits>
#include <map>

namespace lg::config {

namespace {

// A value in Hydra override syntax, unquoted.
struct Value
{
  std::string text;
  bool null = false;
  bool list = false;
  std::vector<std::string> items;
};

std::string to_lower(std::string_view text)
{
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string unquote(std::string_view text)
{
  text = trim(text);
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front()) {
    return std::string(text.substr(1, text.size() - 2));
  }
  return std::string(text);
}

Value parse_value(std::string_view raw)
{
  Value v;
  const std::string_view text = trim(raw);
  if (text == "null" || text == "None" || text == "~") {
    v.null = true;
    return v;
  }
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    v.list = true;
    const std::string_view inner = trim(text.substr(1, text.size() - 2));
    if (!inner.empty()) {
      for (const auto& item : split(std::string(inner), ',')) {
        v.items.push_back(unquote(item));
      }
    }
    v.text = std::string(text);
    return v;
  }
  v.text = unquote(text);
  v.items = {v.text};
  return v;
}

// A setter returns an error message, or empty on success.
using Setter = std::function<std::string(JobSpec&, const Value&)>;

std::string describe(const Value& v)
{
  return v.null ? "null" : fmt::format("'{}'", v.text);
}

std::optional<long long> to_integer(const Value& v)
{
  long long out = 0;
  const auto& t = v.text;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  if (ec != std::errc() || end != t.data() + t.size() || v.list) {
    return std::nullopt;
  }
  return out;
}

std::optional<bool> to_bool(const Value& v)
{
  const std::string t = to_lower(v.text);
  if (t == "true" || t == "1") {
    return true;
  }
  if (t == "false" || t == "0") {
    return false;
  }
  return std::nullopt;
}

template<typename Get>
Setter integer(Get get, long long min, long long max, bool nullable = false, long long null_value = 0)
{
  return [=](JobSpec& s, const Value& v) -> std::string {
    using T = std::remove_reference_t<decltype(get(s))>;
    if (v.null) {
      if (!nullable) {
        return "must be an integer, got null";
      }
      if constexpr (std::is_same_v<T, std::optional<int>>) {
        get(s).reset();
      } else {
        get(s) = static_cast<T>(null_value);
      }
      return {};
    }
    const auto n = to_integer(v);
    if (!n) {
      return fmt::format("must be an integer, got {}", describe(v));
    }
    if (*n < min || *n > max) {
      return fmt::format("must be between {} and {}, got {}", min, max, *n);
    }
    get(s) = static_cast<int>(*n);
    if constexpr (std::is_same_v<T, std::int64_t>) {
      get(s) = *n;
    }
    return {};
  };
}

template<typename Get>
Setter boolean(Get get, bool invert = false)
{
  return [=](JobSpec& s, const Value& v) -> std::string {
    const auto b = to_bool(v);
    if (!b) {
      return fmt::format("must be true or false, got {}", describe(v));
    }
    get(s) = invert ? !*b : *b;
    return {};
  };
}

template<typename Get>
Setter number(Get get, double min, double max)
{
  return [=](JobSpec& s, const Value& v) -> std::string {
    double out = 0;
    const auto& t = v.text;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    if (v.null || ec != std::errc() || end != t.data() + t.size() || !(out >= min && out <= max)) {
      return fmt::format("must be a number between {} and {}, got {}", min, max, describe(v));
    }
    get(s) = out;
    return {};
  };
}

// A string restricted to `names`; `store(spec, index)` keeps it.
Setter choice(std::vector<std::string> names, std::function<void(JobSpec&, std::size_t)> store)
{
  return [=](JobSpec& s, const Value& v) -> std::string {
    std::string text = v.null ? "null" : v.text;
    // Enum values as OmegaConf writes them: "AttnBackend.fused".
    if (const auto dot = text.rfind('.'); dot != std::string::npos && !v.null) {
      text = text.substr(dot + 1);
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (to_lower(names[i]) == to_lower(text)) {
        store(s, i);
        return {};
      }
    }
    return fmt::format("must be one of {}, got {}", fmt::join(names, ", "), describe(v));
  };
}

template<typename Get>
Setter strings(Get get)
{
  return [=](JobSpec& s, const Value& v) -> std::string {
    get(s) = v.null ? std::vector<std::string>{} : v.items;
    return {};
  };
}

std::string set_layer_freq(JobSpec& s, const Value& v)
{
  auto& pattern = ensure_moe(s).layer_pattern;
  if (v.list) {
    pattern.clear();
    for (const auto& item : v.items) {
      if (item != "0" && item != "1") {
        return fmt::format("entries must be 0 or 1, got '{}'", item);
      }
      pattern.push_back(item == "1" ? 1 : 0);
    }
    return {};
  }
  const auto n = to_integer(v);
  if (!n || *n < 1 || *n > 1000) {
    return fmt::format("must be an integer frequency or a list of 0/1, got {}", describe(v));
  }
  pattern = {-static_cast<int>(*n)};  // expanded once num_layers is known (loader finish_job)
  return {};
}

std::string set_dtype(std::string& target, const Value& v, const std::vector<std::string>& allowed)
{
  std::string t = to_lower(v.text);
  if (t.starts_with("torch.")) {
    t = t.substr(6);
  }
  static const std::map<std::string, std::string> aliases = {
    {"float32", "fp32"}, {"float", "fp32"}, {"bfloat16", "bf16"}, {"float16", "fp16"}, {"half", "fp16"},
    {"uint8", "fp8"}, {"float8_e4m3fn", "fp8"}};
  if (const auto it = aliases.find(t); it != aliases.end()) {
    t = it->second;
  }
  if (std::find(allowed.begin(), allowed.end(), t) == allowed.end()) {
    return fmt::format("must be one of {} (torch dtypes accepted), got {}", fmt::join(allowed, ", "), describe(v));
  }
  target = t;
  return {};
}

struct Entry
{
  std::vector<std::string> job_keys;
  Setter set;
};

#define LG_AT(expr) [](JobSpec& job) -> auto& { return job.expr; }

std::map<std::string, Entry, std::less<>> build_table()
{
  std::map<std::string, Entry, std::less<>> t;
  auto add = [&](std::string key, std::string job_key, Setter set) {
    t[std::move(key)] = Entry{{std::move(job_key)}, std::move(set)};
  };
  // Parallelism (ModelParallelConfig, on the model provider).
  add("model.tensor_model_parallel_size", "parallelism.tp", integer(LG_AT(parallelism.tp), 1, 1024));
  add("model.pipeline_model_parallel_size", "parallelism.pp", integer(LG_AT(parallelism.pp), 1, 1024));
  add("model.virtual_pipeline_model_parallel_size", "parallelism.vpp", integer(LG_AT(parallelism.vpp), 1, 1024, true));
  add("model.context_parallel_size", "parallelism.cp", integer(LG_AT(parallelism.cp), 1, 1024));
  add("model.expert_model_parallel_size", "parallelism.ep", integer(LG_AT(parallelism.ep), 1, 4096));
  add("model.expert_tensor_parallel_size", "parallelism.etp", integer(LG_AT(parallelism.etp), 1, 1024, true));
  add("model.sequence_parallel", "parallelism.sequence_parallel", boolean(LG_AT(parallelism.sequence_parallel)));
  add("model.num_layers_in_first_pipeline_stage", "parallelism.first_stage_layers", integer(LG_AT(parallelism.first_stage_layers), 0, 10000, true));
  add("model.num_layers_in_last_pipeline_stage", "parallelism.last_stage_layers", integer(LG_AT(parallelism.last_stage_layers), 0, 10000, true));
  // Model shape (TransformerConfig / GPTModelProvider); ranges as schema.cpp.
  add("model.num_layers", "model.num_layers", integer(LG_AT(model.num_layers), 1, 10000));
  add("model.hidden_size", "model.hidden_size", integer(LG_AT(model.hidden_size), 1, 1 << 20));
  add("model.ffn_hidden_size", "model.ffn_hidden_size", integer(LG_AT(model.ffn_hidden_size), 1, 1 << 22, true));
  add("model.num_attention_heads", "model.num_attention_heads", integer(LG_AT(model.num_attention_heads), 1, 65536));
  add("model.num_query_groups", "model.num_query_groups", integer(LG_AT(model.num_query_groups), 1, 65536, true));
  add("model.kv_channels", "model.kv_channels", integer(LG_AT(model.kv_channels), 1, 65536, true));
  add("model.vocab_size", "model.vocab_size", integer(LG_AT(model.vocab_size), 1, 100000000));
  add("model.make_vocab_size_divisible_by", "model.make_vocab_size_divisible_by", integer(LG_AT(model.make_vocab_size_divisible_by), 1, 1 << 20));
  add("model.seq_length", "model.seq_length", integer(LG_AT(model.seq_length), 1, 1 << 24));
  add("dataset.seq_length", "model.seq_length", integer(LG_AT(model.seq_length), 1, 1 << 24));
  add("dataset.sequence_length", "model.seq_length", integer(LG_AT(model.seq_length), 1, 1 << 24));
  add("model.max_position_embeddings", "model.max_position_embeddings", integer(LG_AT(model.max_position_embeddings), 1, 1 << 24, true));
  add("model.normalization", "model.normalization",
      choice({"RMSNorm", "LayerNorm"}, [](JobSpec& s, std::size_t i) { s.model.normalization = static_cast<Normalization>(i); }));
  add("model.add_bias_linear", "model.add_bias_linear", boolean(LG_AT(model.add_bias_linear)));
  add("model.add_qkv_bias", "model.add_qkv_bias", boolean(LG_AT(model.add_qkv_bias)));
  add("model.qk_layernorm", "model.qk_layernorm", boolean(LG_AT(model.qk_layernorm)));
  add("model.share_embeddings_and_output_weights", "model.untie_embeddings_and_output_weights",
      boolean(LG_AT(model.untie_embeddings_and_output_weights), true));
  add("model.position_embedding_type", "model.position_embedding_type",
      choice({"rope", "learned_absolute", "none", "yarn", "mrope"},
             [](JobSpec& s, std::size_t i) { s.model.position_embedding_type = std::vector<std::string>{"rope", "learned_absolute", "none", "yarn", "mrope"}[i]; }));
  add("model.hidden_dropout", "model.hidden_dropout", number(LG_AT(model.hidden_dropout), 0.0, 1.0));
  add("model.attention_dropout", "model.attention_dropout", number(LG_AT(model.attention_dropout), 0.0, 1.0));
  add("model.mtp_num_layers", "model.mtp_num_layers", integer(LG_AT(model.mtp_num_layers), 0, 64, true));
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
  // Recompute.
  add("model.recompute_granularity", "training.recompute.granularity",
      choice({"null", "selective", "full"}, [](JobSpec& s, std::size_t i) { s.training.recompute.granularity = static_cast<RecomputeGranularity>(i); }));
  add("model.recompute_method", "training.recompute.method", [](JobSpec& s, const Value& v) -> std::string {
    if (v.null) {
      s.training.recompute.method = RecomputeMethod::uniform;
      return {};
    }
    return choice({"uniform", "block"}, [](JobSpec& j, std::size_t i) { j.training.recompute.method = static_cast<RecomputeMethod>(i); })(s, v);
  });
  add("model.recompute_num_layers", "training.recompute.num_layers", integer(LG_AT(training.recompute.num_layers), 0, 10000, true, 1));
  add("model.recompute_modules", "training.recompute.modules", strings(LG_AT(training.recompute.modules)));
  // Attention, offloading, CUDA graphs, overlap.
  add("model.attention_backend", "training.attention_backend",
      choice({"auto", "fused", "flash", "unfused", "local"}, [](JobSpec& s, std::size_t i) {
        // auto: Transformer Engine picks; fused is what it picks on Hopper and
        // Blackwell for the common shapes. local: Megatron's own (unfused) core attention.
        static const AttentionBackend map[] = {AttentionBackend::fused, AttentionBackend::fused, AttentionBackend::flash,
                                               AttentionBackend::unfused, AttentionBackend::unfused};
        s.training.attention_backend = map[i];
      }));
  add("model.fine_grained_activation_offloading", "training.fine_grained_activation_offloading",
      boolean(LG_AT(training.fine_grained_activation_offloading)));
  add("model.cuda_graph_scope", "training.cuda_graph_modules", strings(LG_AT(training.cuda_graph_modules)));
  for (const char* section : {"model", "comm_overlap"}) {
    add(fmt::format("{}.tp_comm_overlap", section), "training.tp_comm_overlap", boolean(LG_AT(training.tp_comm_overlap)));
    add(fmt::format("{}.overlap_moe_expert_parallel_comm", section), "training.overlap_moe_expert_parallel_comm",
        boolean(LG_AT(training.overlap_moe_expert_parallel_comm)));
    add(fmt::format("{}.delay_wgrad_compute", section), "training.delay_wgrad_compute", boolean(LG_AT(training.delay_wgrad_compute)));
  }
  for (const char* section : {"ddp", "comm_overlap"}) {
    add(fmt::format("{}.overlap_grad_reduce", section), "training.overlap_grad_reduce", boolean(LG_AT(training.overlap_grad_reduce)));
    add(fmt::format("{}.overlap_param_gather", section), "training.overlap_param_gather", boolean(LG_AT(training.overlap_param_gather)));
  }
  for (const char* key : {"mixed_precision.fp8_param_gather", "mixed_precision.fp8_param", "model.fp8_param", "ddp.fp8_param_gather"}) {
    add(key, "training.fp8_param_gather", [](JobSpec& s, const Value& v) -> std::string {
      if (v.null) {
        return {};  // None: follows fp8_param_gather (MixedPrecisionConfig.__post_init__)
      }
      return boolean(LG_AT(training.fp8_param_gather))(s, v);
    });
  }
  // Batch.
  add("train.micro_batch_size", "training.micro_batch_size", integer(LG_AT(training.micro_batch_size), 1, 1 << 20));
  add("train.global_batch_size", "training.global_batch_size", integer(LG_AT(training.global_batch_size), 1, 1 << 30));
  // Optimizer and gradients.
  add("optimizer.optimizer", "training.optimizer.name",
      choice({"adam", "sgd"}, [](JobSpec& s, std::size_t i) { s.training.optimizer.name = i == 0 ? "adam" : "sgd"; }));
  for (const char* key : {"optimizer.use_distributed_optimizer", "ddp.use_distributed_optimizer"}) {
    add(key, "training.distributed_optimizer", boolean(LG_AT(training.distributed_optimizer)));
  }
  add("optimizer.use_precision_aware_optimizer", "training.optimizer.precision_aware", boolean(LG_AT(training.optimizer.precision_aware)));
  add("optimizer.main_grads_dtype", "training.optimizer.grad_dtype",
      [](JobSpec& s, const Value& v) { return set_dtype(s.training.optimizer.grad_dtype, v, {"fp32", "bf16"}); });
  for (const char* key : {"optimizer.exp_avg_dtype", "optimizer.exp_avg_sq_dtype"}) {
    add(key, "training.optimizer.state_dtype",
        [](JobSpec& s, const Value& v) { return set_dtype(s.training.optimizer.state_dtype, v, {"fp32", "bf16", "fp16", "fp8"}); });
  }
  for (const char* key : {"ddp.grad_reduce_in_fp32", "mixed_precision.grad_reduce_in_fp32"}) {
    add(key, "training.optimizer.grad_dtype", [](JobSpec& s, const Value& v) -> std::string {
      const auto b = to_bool(v);
      if (!b) {
        return fmt::format("must be true or false, got {}", describe(v));
      }
      s.training.optimizer.grad_dtype = *b ? "fp32" : "bf16";
      return {};
    });
  }
  // FSDP.
  add("ddp.use_megatron_fsdp", "training.fsdp", [](JobSpec& s, const Value& v) -> std::string {
    const auto b = to_bool(v);
    if (!b) {
      return fmt::format("must be true or false, got {}", describe(v));
    }
    if (*b) {
      s.training.fsdp = Fsdp::megatron;
    } else if (s.training.fsdp == Fsdp::megatron) {
      s.training.fsdp = Fsdp::none;
    }
    return {};
  });
  add("dist.use_torch_fsdp2", "training.fsdp", [](JobSpec& s, const Value& v) -> std::string {
    const auto b = to_bool(v);
    if (!b) {
      return fmt::format("must be true or false, got {}", describe(v));
    }
    if (*b) {
      s.training.fsdp = Fsdp::torch;
    } else if (s.training.fsdp == Fsdp::torch) {
      s.training.fsdp = Fsdp::none;
    }
    return {};
  });
  add("ddp.data_parallel_sharding_strategy", "training.fsdp_sharding",
      choice({"no_shard", "optim", "optim_grads", "optim_grads_params"}, [](JobSpec& s, std::size_t i) {
        s.training.fsdp_sharding = std::vector<std::string>{"no_shard", "optim", "optim_grads", "optim_grads_params"}[i];
      }));
  add("ddp.nccl_ub", "training.nccl_ub", boolean(LG_AT(training.nccl_ub)));
  // PEFT (LoRA).
  add("peft.dim", "peft.rank", integer(LG_AT(peft.rank), 1, 65536));
  add("peft.alpha", "peft.alpha", number(LG_AT(peft.alpha), 0.0, 1e9));
  add("peft.target_modules", "peft.targets", strings(LG_AT(peft.targets)));
  add("peft.sequence_parallel_input_regather", "peft.sequence_parallel_input_regather",
      boolean(LG_AT(peft.sequence_parallel_input_regather)));
  return t;
}

#undef LG_AT

const std::map<std::string, Entry, std::less<>>& table()
{
  static const auto t = build_table();
  return t;
}

// Values of these fields mean "off", so no not-modelled note is due.
bool is_default_off(const Value& v)
{
  if (v.null || v.text.empty()) {
    return true;
  }
  const std::string t = to_lower(v.text);
  return t == "false" || t == "0" || t == "none" || t == "[]" || (v.list && v.items.empty());
}

bool valid_key(std::string_view key)
{
  if (key.empty() || key.front() == '.' || key.back() == '.') {
    return false;
  }
  return std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  });
}

// Record `where` for `job_key` and for each enclosing section not yet located,
// so a rule asking for "training.recompute" finds the setting too.
void record(JobSpec& spec, const std::string& job_key, const SourceLocation& where)
{
  spec.locations[job_key] = where;
  for (auto dot = job_key.rfind('.'); dot != std::string::npos; dot = job_key.rfind('.', dot - 1)) {
    spec.locations.emplace(job_key.substr(0, dot), where);
    if (dot == 0) {
      break;
    }
  }
}

std::vector<std::string> all_known_keys(const std::string& section)
{
  std::vector<std::string> keys;
  for (const auto& [key, entry] : table()) {
    if (key.starts_with(section + ".")) {
      keys.push_back(key.substr(section.size() + 1));
    }
  }
  for (const auto& known : bridge_known_sections()) {
    if (known.name == section) {
      keys.insert(keys.end(), known.fields.begin(), known.fields.end());
    }
  }
  return keys;
}

// The precision settings Megatron resolves together, gathered from model.*,
// mixed_precision.* and a named mixed_precision recipe.
struct Pending
{
  std::optional<std::pair<std::size_t, Value>> fp8, fp8_recipe, fp4, fp4_recipe, fp16, recipe;
  std::optional<std::pair<std::size_t, Value>> activation, gated, cpu_offloading, cpu_layers;
  std::optional<std::pair<std::size_t, Value>> enable_graph, graph_impl, external_graph;
  std::optional<std::pair<std::size_t, Value>> optimizer_offload, offload_fraction, peft_target;
};

// Named MixedPrecisionConfig recipes (mixed_precision.py @register functions).
std::optional<Precision> recipe_precision(const std::string& name)
{
  static const std::map<std::string, Precision> recipes = {
    {"bf16_mixed", Precision::bf16},
    {"fp16_mixed", Precision::fp16},
    {"bf16_with_fp8_delayed_scaling_mixed", Precision::fp8_delayed},
    {"fp16_with_fp8_delayed_scaling_mixed", Precision::fp8_delayed},
    {"bf16_with_mxfp8_mixed", Precision::mxfp8},
    {"fp16_with_mxfp8_mixed", Precision::mxfp8},
    {"bf16_with_fp8_current_scaling_mixed", Precision::fp8_cs},
    {"nemotron_h_bf16_with_fp8_current_scaling_mixed", Precision::fp8_cs},
    {"fp16_with_fp8_current_scaling_mixed", Precision::fp8_cs},
    {"nanov2_bf16_with_fp8_current_scaling_mixed", Precision::fp8_blockwise},
    {"bf16_with_fp8_subchannel_scaling_mixed", Precision::fp8_blockwise},
    {"fp16_with_fp8_subchannel_scaling_mixed", Precision::fp8_blockwise},
    {"bf16_with_nvfp4_mixed", Precision::nvfp4},
    {"nemotron_3_super_bf16_with_nvfp4_mixed", Precision::nvfp4},
  };
  std::string key = name;
  std::replace(key.begin(), key.end(), '-', '_');
  if (const auto it = recipes.find(key); it != recipes.end()) {
    return it->second;
  }
  return std::nullopt;
}

std::vector<std::string> recipe_names()
{
  return {"bf16_mixed", "fp16_mixed", "bf16_with_fp8_delayed_scaling_mixed", "bf16_with_mxfp8_mixed",
          "bf16_with_fp8_current_scaling_mixed", "bf16_with_fp8_subchannel_scaling_mixed", "bf16_with_nvfp4_mixed"};
}

void resolve_pending(JobSpec& spec, const Pending& p, const std::vector<BridgeSetting>& settings,
                     std::vector<BridgeOutcome>& out)
{
  auto fail = [&](const std::optional<std::pair<std::size_t, Value>>& at, std::string message, std::string hint = {}) {
    out[at->first].effect = BridgeEffect::error;
    out[at->first].message = fmt::format("{} {}", settings[at->first].key, message);
    out[at->first].hint = std::move(hint);
  };
  auto mark = [&](const std::optional<std::pair<std::size_t, Value>>& at, const std::string& job_key) {
    if (at) {
      out[at->first].effect = BridgeEffect::applied;
      out[at->first].job_keys = {job_key};
      record(spec, job_key, settings[at->first].where);
    }
  };
  // Precision: a recipe name first, then the explicit fields over it.
  if (p.recipe) {
    if (auto precision = recipe_precision(p.recipe->second.text)) {
      spec.training.precision = *precision;
      mark(p.recipe, "training.precision");
    } else {
      std::string hint;
      const auto names = recipe_names();
      if (auto near = nearest(p.recipe->second.text, names)) {
        hint = fmt::format("did you mean '{}'?", *near);
      } else {
        hint = fmt::format("known recipes: {}", fmt::join(names, ", "));
      }
      fail(p.recipe, fmt::format("names no mixed-precision recipe of Megatron Bridge: '{}'", p.recipe->second.text), hint);
    }
  }
  if (p.fp16) {
    if (const auto b = to_bool(p.fp16->second)) {
      if (*b && !is_fp8(spec.training.precision) && !is_fp4(spec.training.precision)) {
        spec.training.precision = Precision::fp16;
      } else if (!*b && spec.training.precision == Precision::fp16) {
        spec.training.precision = Precision::bf16;
      }
      mark(p.fp16, "training.precision");
    } else {
      fail(p.fp16, fmt::format("must be true or false, got {}", describe(p.fp16->second)));
    }
  }
  const Precision base = spec.training.precision == Precision::fp16 ? Precision::fp16 : Precision::bf16;
  if (p.fp8) {
    const Value& v = p.fp8->second;
    if (v.null || is_default_off(v)) {
      if (is_fp8(spec.training.precision)) {
        spec.training.precision = base;
      }
      mark(p.fp8, "training.precision");
    } else if (v.text == "e4m3" || v.text == "hybrid") {
      // MixedPrecisionConfig's fp8_recipe default is "tensorwise" (current scaling).
      if (!is_fp8(spec.training.precision)) {
        spec.training.precision = Precision::fp8_cs;
      }
      mark(p.fp8, "training.precision");
    } else {
      fail(p.fp8, fmt::format("must be null, e4m3 or hybrid, got {}", describe(v)));
    }
  }
  if (p.fp8_recipe) {
    static const std::map<std::string, Precision> recipes = {
      {"delayed", Precision::fp8_delayed}, {"tensorwise", Precision::fp8_cs},
      {"blockwise", Precision::fp8_blockwise}, {"mxfp8", Precision::mxfp8}};
    const auto it = recipes.find(p.fp8_recipe->second.text);
    if (it == recipes.end()) {
      fail(p.fp8_recipe, fmt::format("must be delayed, tensorwise, blockwise or mxfp8, got {}", describe(p.fp8_recipe->second)),
           p.fp8_recipe->second.text == "custom" ? "a custom FP8 recipe is not modelled; use the nearest named one" : "");
    } else {
      if (is_fp8(spec.training.precision)) {
        spec.training.precision = it->second;
      }
      mark(p.fp8_recipe, "training.precision");
    }
  }
  if (p.fp4) {
    const Value& v = p.fp4->second;
    if (is_default_off(v)) {
      if (is_fp4(spec.training.precision)) {
        spec.training.precision = base;
      }
    } else {
      spec.training.precision = Precision::nvfp4;
    }
    mark(p.fp4, "training.precision");
  }
  if (p.fp4_recipe) {
    if (p.fp4_recipe->second.text != "nvfp4") {
      fail(p.fp4_recipe, fmt::format("must be nvfp4, got {}", describe(p.fp4_recipe->second)));
    } else {
      mark(p.fp4_recipe, "training.precision");
    }
  }
  // Activation: activation_func with gated_linear_unit.
  if (p.activation || p.gated) {
    auto& act = spec.model.activation;
    bool gated = act == Activation::swiglu || act == Activation::geglu;
    if (p.gated) {
      if (const auto b = to_bool(p.gated->second)) {
        gated = *b;
      } else {
        fail(p.gated, fmt::format("must be true or false, got {}", describe(p.gated->second)));
      }
    }
    std::string fn = act == Activation::squared_relu ? "squared_relu"
                     : act == Activation::gelu || act == Activation::geglu ? "gelu"
                                                                           : "silu";
    if (p.activation) {
      // "torch.nn.functional.silu", "silu", {_target_: megatron.core.activations.squared_relu}.
      std::string text = to_lower(p.activation->second.text);
      if (const auto dot = text.rfind('.'); dot != std::string::npos) {
        text = text.substr(dot + 1);
      }
      static const std::map<std::string, std::string> names = {
        {"silu", "silu"}, {"gelu", "gelu"}, {"fast_gelu", "gelu"}, {"gelu_pytorch_tanh", "gelu"}, {"quick_gelu", "gelu"},
        {"openai_gelu", "gelu"}, {"squared_relu", "squared_relu"}, {"relu2", "squared_relu"}};
      if (const auto it = names.find(text); it != names.end()) {
        fn = it->second;
      } else {
        fail(p.activation, fmt::format("names an activation the estimator does not know: {}", describe(p.activation->second)),
             "known: silu, gelu, fast_gelu, quick_gelu, squared_relu");
      }
    }
    act = fn == "squared_relu" ? Activation::squared_relu
          : fn == "gelu"       ? (gated ? Activation::geglu : Activation::gelu)
                               : (gated ? Activation::swiglu : Activation::gelu);
    mark(p.activation, "model.activation");
    mark(p.gated, "model.activation");
  }
  // Activation offloading: cpu_offloading with cpu_offloading_num_layers.
  if (p.cpu_offloading || p.cpu_layers) {
    bool on = spec.training.cpu_offloading_layers > 0;
    int layers = spec.training.cpu_offloading_layers;
    if (p.cpu_offloading) {
      if (const auto b = to_bool(p.cpu_offloading->second)) {
        on = *b;
      } else {
        fail(p.cpu_offloading, fmt::format("must be true or false, got {}", describe(p.cpu_offloading->second)));
      }
    }
    if (p.cpu_layers) {
      const auto n = to_integer(p.cpu_layers->second);
      if (!n || *n < 0 || *n > 10000) {
        fail(p.cpu_layers, fmt::format("must be an integer between 0 and 10000, got {}", describe(p.cpu_layers->second)));
      } else {
        layers = static_cast<int>(*n);
        on = on || !p.cpu_offloading;
      }
    }
    spec.training.cpu_offloading_layers = on ? std::max(layers, 1) : 0;
    mark(p.cpu_offloading, "training.cpu_offloading_layers");
    mark(p.cpu_layers, "training.cpu_offloading_layers");
  }
  // CUDA graphs: cuda_graph_impl, or the older enable_cuda_graph / external_cuda_graph.
  if (p.enable_graph) {
    if (const auto b = to_bool(p.enable_graph->second)) {
      if (*b) {
        spec.training.cuda_graphs = CudaGraphs::local;
      } else if (spec.training.cuda_graphs == CudaGraphs::local) {
        spec.training.cuda_graphs = CudaGraphs::none;
      }
      mark(p.enable_graph, "training.cuda_graphs");
    } else {
      fail(p.enable_graph, fmt::format("must be true or false, got {}", describe(p.enable_graph->second)));
    }
  }
  if (p.external_graph) {
    if (const auto b = to_bool(p.external_graph->second)) {
      if (*b) {
        spec.training.cuda_graphs = CudaGraphs::transformer_engine;
      }
      mark(p.external_graph, "training.cuda_graphs");
    } else {
      fail(p.external_graph, fmt::format("must be true or false, got {}", describe(p.external_graph->second)));
    }
  }
  if (p.graph_impl) {
    static const std::map<std::string, CudaGraphs> impls = {
      {"none", CudaGraphs::none}, {"local", CudaGraphs::local},
      {"transformer_engine", CudaGraphs::transformer_engine}, {"full_iteration", CudaGraphs::full_iteration}};
    const auto it = impls.find(p.graph_impl->second.null ? "none" : p.graph_impl->second.text);
    if (it == impls.end()) {
      fail(p.graph_impl, fmt::format("must be none, local, transformer_engine or full_iteration, got {}", describe(p.graph_impl->second)));
    } else {
      spec.training.cuda_graphs = it->second;
      mark(p.graph_impl, "training.cuda_graphs");
    }
  }
  // Optimizer CPU offload: optimizer_cpu_offload with optimizer_offload_fraction.
  if (p.optimizer_offload || p.offload_fraction) {
    bool on = spec.training.optimizer.cpu_offload_fraction > 0;
    double fraction = on ? spec.training.optimizer.cpu_offload_fraction : 1.0;
    if (p.optimizer_offload) {
      if (const auto b = to_bool(p.optimizer_offload->second)) {
        on = *b;
      } else {
        fail(p.optimizer_offload, fmt::format("must be true or false, got {}", describe(p.optimizer_offload->second)));
      }
    }
    if (p.offload_fraction) {
      double f = -1;
      const auto& t = p.offload_fraction->second.text;
      std::from_chars(t.data(), t.data() + t.size(), f);
      if (!(f >= 0.0 && f <= 1.0)) {
        fail(p.offload_fraction, fmt::format("must be a number between 0 and 1, got {}", describe(p.offload_fraction->second)));
      } else {
        fraction = f;
      }
    }
    spec.training.optimizer.cpu_offload_fraction = on ? fraction : 0.0;
    mark(p.optimizer_offload, "training.optimizer.cpu_offload_fraction");
    mark(p.offload_fraction, "training.optimizer.cpu_offload_fraction");
  }
  // PEFT method: peft._target_ (the class a YAML names) or `peft=lora`.
  if (p.peft_target) {
    const Value& v = p.peft_target->second;
    std::string name = to_lower(v.null ? "none" : v.text);
    if (const auto dot = name.rfind('.'); dot != std::string::npos) {
      name = name.substr(dot + 1);
    }
    if (name == "none" || name.empty()) {
      spec.peft.method = "none";
      mark(p.peft_target, "peft.method");
    } else if (name == "lora" || name == "canonicallora" || name == "canonical_lora" || name == "dora") {
      spec.peft.method = "lora";
      mark(p.peft_target, "peft.method");
      if (name == "dora") {
        auto& o = out[p.peft_target->first];
        o.effect = BridgeEffect::not_modelled;
        o.message = fmt::format("{} = {}: {}", settings[p.peft_target->first].key, v.text, *not_modelled_what("peft.dora"));
        note_not_modelled(spec, "peft.dora", settings[p.peft_target->first].key + " = " + v.text,
                          settings[p.peft_target->first].where);
      }
    } else {
      fail(p.peft_target, fmt::format("names a PEFT method launchguard does not model: {}", describe(v)), "use LoRA, DoRA or none");
    }
  }
}

// Which Pending slot a key belongs to, if any.
std::optional<std::pair<std::size_t, Value>>* pending_slot(Pending& p, std::string_view key)
{
  auto field = [&](std::string_view name) {
    return key == fmt::format("model.{}", name) || key == fmt::format("mixed_precision.{}", name);
  };
  if (key == "mixed_precision") {
    return &p.recipe;
  }
  if (field("fp8")) {
    return &p.fp8;
  }
  if (field("fp8_recipe")) {
    return &p.fp8_recipe;
  }
  if (field("fp4")) {
    return &p.fp4;
  }
  if (field("fp4_recipe")) {
    return &p.fp4_recipe;
  }
  if (field("fp16")) {
    return &p.fp16;
  }
  static const std::map<std::string, std::optional<std::pair<std::size_t, Value>> Pending::*, std::less<>> slots = {
    {"model.activation_func", &Pending::activation},
    {"model.gated_linear_unit", &Pending::gated},
    {"model.cpu_offloading", &Pending::cpu_offloading},
    {"model.cpu_offloading_activations", &Pending::cpu_offloading},
    {"model.cpu_offloading_num_layers", &Pending::cpu_layers},
    {"model.enable_cuda_graph", &Pending::enable_graph},
    {"model.external_cuda_graph", &Pending::external_graph},
    {"model.cuda_graph_impl", &Pending::graph_impl},
    {"optimizer.optimizer_cpu_offload", &Pending::optimizer_offload},
    {"optimizer.optimizer_offload_fraction", &Pending::offload_fraction},
    {"peft._target_", &Pending::peft_target},
    {"peft", &Pending::peft_target},
  };
  if (const auto it = slots.find(key); it != slots.end()) {
    return &(p.*(it->second));
  }
  return nullptr;
}

} // namespace

const std::vector<std::string>& bridge_unchecked_sections()
{
  static const std::vector<std::string> sections = {
    "rng", "rerun_state_machine", "validation", "scheduler", "logger", "tokenizer", "checkpoint", "dist",
    "ft", "straggler", "nvrx_straggler", "profiling", "tensor_inspect", "inprocess_restart",
    "optimizer_config_override_provider"};
  return sections;
}

std::optional<BridgeSetting> parse_bridge_override(std::string_view word, SourceLocation where)
{
  const auto eq = word.find('=');
  if (eq == std::string_view::npos) {
    return std::nullopt;
  }
  std::string_view key = word.substr(0, eq);
  while (key.starts_with("+")) {
    key.remove_prefix(1);
  }
  if (!valid_key(key) || !(key.front() >= 'a' && key.front() <= 'z')) {
    return std::nullopt;
  }
  return BridgeSetting{std::string(key), std::string(word.substr(eq + 1)), std::move(where)};
}

std::vector<BridgeOutcome> apply_bridge_settings(JobSpec& spec, const std::vector<BridgeSetting>& settings)
{
  std::vector<BridgeOutcome> out(settings.size());
  Pending pending;
  for (std::size_t i = 0; i < settings.size(); ++i) {
    const auto& setting = settings[i];
    auto& o = out[i];
    const std::string& key = setting.key;
    const Value value = parse_value(setting.value);
    const auto dot = key.find('.');
    const std::string section = key.substr(0, dot);
    const std::string field = dot == std::string::npos ? "" : key.substr(dot + 1);
    if (auto* slot = pending_slot(pending, key)) {
      *slot = std::make_pair(i, value);
      o.effect = BridgeEffect::applied;  // resolved below; may turn into an error
      continue;
    }
    if (const auto it = table().find(key); it != table().end()) {
      if (std::string error = it->second.set(spec, value); !error.empty()) {
        o.effect = BridgeEffect::error;
        o.message = fmt::format("{} {}", key, error);
        continue;
      }
      o.effect = BridgeEffect::applied;
      o.job_keys = it->second.job_keys;
      for (const auto& job_key : o.job_keys) {
        record(spec, job_key, setting.where);
      }
      continue;
    }
    if (section == "env_vars" && !field.empty()) {
      auto found = std::find_if(spec.env.begin(), spec.env.end(), [&](const auto& kv) { return kv.first == field; });
      if (found != spec.env.end()) {
        found->second = value.text;
      } else {
        spec.env.emplace_back(field, value.text);
      }
      o.effect = BridgeEffect::applied;
      o.job_keys = {"env." + field};
      record(spec, "env." + field, setting.where);
      continue;
    }
    if (const auto what = not_modelled_what(key); what && key.find('.') != std::string::npos) {
      o.effect = is_default_off(value) ? BridgeEffect::not_read : BridgeEffect::not_modelled;
      o.message = fmt::format("{} = {}: {}; launchguard's estimate does not include it", key, value.text, *what);
      if (o.effect == BridgeEffect::not_modelled) {
        note_not_modelled(spec, key, "= " + value.text, setting.where);
      }
      continue;
    }
    if (field.starts_with("_") || field.find("._") != std::string::npos) {
      continue;  // _target_, _partial_, _call_: OmegaConf instantiation keys
    }
    const auto& unchecked = bridge_unchecked_sections();
    if (std::find(unchecked.begin(), unchecked.end(), section) != unchecked.end()) {
      continue;
    }
    const auto& known = bridge_known_sections();
    const auto sec = std::find_if(known.begin(), known.end(), [&](const KnownSection& s) { return s.name == section; });
    if (sec == known.end()) {
      std::vector<std::string> names = {"env_vars", "mixed_precision", "peft"};
      for (const auto& s : known) {
        names.push_back(s.name);
      }
      names.insert(names.end(), unchecked.begin(), unchecked.end());
      o.effect = BridgeEffect::error;
      o.message = fmt::format("unknown ConfigContainer section '{}' in {}", section, key);
      if (auto near = nearest(section, names)) {
        o.hint = fmt::format("did you mean '{}'?", *near);
      } else {
        o.hint = "sections: model, train, optimizer, ddp, dataset, mixed_precision, comm_overlap, peft, env_vars, …";
      }
      continue;
    }
    // Only the first path component below the section is a dataclass field;
    // deeper keys (dataset.dataset_kwargs.x, comm_overlap.tp_comm_overlap_cfg.y) are free-form.
    const std::string head = field.substr(0, field.find('.'));
    const auto fields = all_known_keys(section);
    if (std::find(fields.begin(), fields.end(), head) != fields.end()) {
      continue;  // a real field that does not change memory, rules or environment
    }
    o.effect = BridgeEffect::error;
    o.message = fmt::format("unknown key {} (no field '{}' in the {} section of Megatron Bridge's ConfigContainer)", key,
                            head, section);
    if (auto near = nearest(head, fields)) {
      o.hint = fmt::format("did you mean '{}.{}'?", section, *near);
    }
  }
  resolve_pending(spec, pending, settings, out);
  return out;
}

void apply_bridge_settings_or_throw(JobSpec& spec, const std::vector<BridgeSetting>& settings)
{
  const auto outcomes = apply_bridge_settings(spec, settings);
  std::string text;
  std::string hint;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const auto& o = outcomes[i];
    const auto& where = settings[i].where;
    const std::string at = where.file.empty() ? "" : fmt::format("{}:{}:{}: ", where.file, where.line, where.column);
    if (o.effect == BridgeEffect::error) {
      if (text.empty()) {
        hint = o.hint;
      } else {
        text += "\n";
      }
      const bool first = text.empty();
      text += at + o.message;
      if (!first && !o.hint.empty()) {
        text += fmt::format(" ({})", o.hint);
      }
    }
  }
  if (!text.empty()) {
    InputError error("{}", text);
    error.hint = hint;
    throw error;
  }
}

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
