// The job-file schema (docs/job-file.md is generated from it): every section, every key, its type, range
// or allowed values, and where it lands in JobSpec. Adding a key is one line.
#include "config/toml_reader.hpp"

#include "util/error.hpp"

#include <fmt/format.h>

#include <limits>
#include <type_traits>

namespace lg::config {

namespace {

constexpr std::int64_t k_big = std::numeric_limits<int>::max();

// LG_FIELD(model.num_layers) -> an accessor returning a reference to that
// member of a JobSpec.
#define LG_FIELD(expr) [](JobSpec& job) -> auto& { return job.expr; }

// The default of the field `get` reaches in a default JobSpec, as TOML text.
template<typename Get>
auto default_of(Get get)
{
  static JobSpec defaults;
  JobSpec copy = defaults;
  return get(copy);
}

std::string range_text(std::int64_t min, std::int64_t max)
{
  return max == k_big ? fmt::format(">= {}", min) : fmt::format("{}..{}", min, max);
}

std::string quoted_list(const std::vector<std::string>& names)
{
  std::string out;
  for (const auto& name : names) {
    out += (out.empty() ? "" : ", ") + ("\"" + name + "\"");
  }
  return out;
}

template<typename Get>
Key int_key(Get get, std::int64_t min, std::int64_t max = k_big)
{
  std::string fallback;
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(default_of(get))>, std::optional<int>>) {
    const auto d = default_of(get);
    fallback = d ? std::to_string(*d) : "unset";
  } else {
    fallback = std::to_string(default_of(get));
  }
  return Key([=](TomlReader& r, const toml::node& n) {
    if (auto v = r.integer(n, min, max)) {
      using T = std::remove_reference_t<decltype(get(r.spec()))>;
      if constexpr (std::is_same_v<T, std::optional<int>>) {
        get(r.spec()) = static_cast<int>(*v);
      } else {
        get(r.spec()) = static_cast<T>(*v);
      }
    }
  }, "integer", range_text(min, max), fallback);
}

template<typename Get>
Key number_key(Get get, double min, double max)
{
  const std::string fallback = fmt::format("{}", default_of(get));
  return Key([=](TomlReader& r, const toml::node& n) {
    if (auto v = r.number(n, min, max)) {
      get(r.spec()) = *v;
    }
  }, "number", fmt::format("{}..{}", min, max), fallback);
}

template<typename Get>
Key bool_key(Get get)
{
  const std::string fallback = default_of(get) ? "true" : "false";
  return Key([=](TomlReader& r, const toml::node& n) {
    if (auto v = r.boolean(n)) {
      get(r.spec()) = *v;
    }
  }, "boolean", "", fallback);
}

template<typename Get>
Key string_key(Get get)
{
  const std::string fallback = "\"" + std::string(default_of(get)) + "\"";
  return Key([=](TomlReader& r, const toml::node& n) {
    if (auto v = r.string(n)) {
      get(r.spec()) = *v;
    }
  }, "string", "", fallback);
}

template<typename Get>
Key list_key(Get get)
{
  const std::string fallback = "[" + quoted_list(default_of(get)) + "]";
  return Key([=](TomlReader& r, const toml::node& n) {
    if (auto v = r.string_list(n)) {
      get(r.spec()) = *v;
    }
  }, "list of strings", "", fallback);
}

// An enum key: `names[i]` maps to `static_cast<E>(i)`.
template<typename Get>
Key enum_key(Get get, std::vector<std::string> names)
{
  const std::string fallback = "\"" + names.at(static_cast<std::size_t>(default_of(get))) + "\"";
  const std::string range = quoted_list(names);
  return Key([=](TomlReader& r, const toml::node& n) {
    if (auto i = r.choice(n, names)) {
      using E = std::remove_reference_t<decltype(get(r.spec()))>;
      get(r.spec()) = static_cast<E>(*i);
    }
  }, "one of", range, fallback);
}

// A string key restricted to `names` (kept as the canonical spelling).
template<typename Get>
Key choice_key(Get get, std::vector<std::string> names)
{
  const std::string fallback = "\"" + std::string(default_of(get)) + "\"";
  const std::string range = quoted_list(names);
  return Key([=](TomlReader& r, const toml::node& n) {
    if (auto i = r.choice(n, names)) {
      get(r.spec()) = names[*i];
    }
  }, "one of", range, fallback);
}

void set_layer_freq(TomlReader& r, const toml::node& n)
{
  auto& pattern = ensure_moe(r.spec()).layer_pattern;
  if (n.is_integer()) {
    if (auto f = r.integer(n, 1, 1000)) {
      // Expanded once num_layers is known (loader.cpp); store the frequency.
      pattern = {-static_cast<int>(*f)};
    }
    return;
  }
  const auto* array = n.as_array();
  if (array == nullptr) {
    r.report(n, fmt::format("{} must be an integer or a list of 0/1, got {}", r.key(), describe(n)),
             "write layer_freq = 1 (every layer MoE) or [0, 1, 1, …]");
    return;
  }
  pattern.clear();
  for (const auto& element : *array) {
    const auto* i = element.as_integer();
    if (i == nullptr || (i->get() != 0 && i->get() != 1)) {
      r.report(element, fmt::format("{} entries must be 0 or 1, got {}", r.key(), describe(element)));
      return;
    }
    pattern.push_back(static_cast<int>(i->get()));
  }
}

void set_pipeline_layout(TomlReader& r, const toml::node& n)
{
  const auto text = r.string(n);
  if (!text) {
    return;
  }
  try {
    (void)parse_pipeline_layout(*text);
    r.spec().parallelism.pipeline_layout = *text;
  } catch (const InputError& e) {
    r.report(n, e.what(), e.hint);
  }
}

void set_recompute(TomlReader& r, const toml::node& n)
{
  auto& rc = r.spec().training.recompute;
  if (const auto* s = n.as_string()) {
    // recompute = "none" | "selective" | "full"
    if (auto i = r.choice(n, {"none", "selective", "full"})) {
      rc.granularity = static_cast<RecomputeGranularity>(*i);
    }
    (void)s;
    return;
  }
  if (!n.is_table()) {
    r.report(n, fmt::format("training.recompute must be a table or \"none\"/\"selective\"/\"full\", got {}", describe(n)),
             "write recompute = { granularity = \"selective\", modules = [\"core_attn\"] }");
  }
}

Setter str_map_entry()
{
  return [](TomlReader& r, const toml::node& n) {
    const std::string name = r.key().substr(4);  // strip "env."
    std::string value;
    if (const auto* s = n.as_string()) {
      value = s->get();
    } else if (const auto* i = n.as_integer()) {
      value = std::to_string(i->get());
    } else if (const auto* b = n.as_boolean()) {
      value = b->get() ? "1" : "0";
    } else {
      r.report(n, fmt::format("{} must be a string, got {}", r.key(), describe(n)),
               fmt::format("write {} = \"value\"", name));
      return;
    }
    // TOML refuses a key defined twice in one table, so no search for an
    // earlier entry (it made 1e6 keys load in quadratic time).
    r.spec().env.emplace_back(name, value);
  };
}

std::vector<Section> build_schema()
{
  std::vector<Section> s;
  s.push_back({"job", {{"name", string_key(LG_FIELD(name))}}, {}});
  s.push_back({"model",
               {{"preset", string_key(LG_FIELD(model.preset))},
                {"hf_config", string_key(LG_FIELD(model.hf_config))},
                {"num_layers", int_key(LG_FIELD(model.num_layers), 1, 10000)},
                {"hidden_size", int_key(LG_FIELD(model.hidden_size), 1, 1 << 20)},
                {"ffn_hidden_size", int_key(LG_FIELD(model.ffn_hidden_size), 1, 1 << 22)},
                {"num_attention_heads", int_key(LG_FIELD(model.num_attention_heads), 1, 65536)},
                {"num_query_groups", int_key(LG_FIELD(model.num_query_groups), 1, 65536)},
                {"kv_channels", int_key(LG_FIELD(model.kv_channels), 1, 65536)},
                {"vocab_size", int_key(LG_FIELD(model.vocab_size), 1, 100000000)},
                {"make_vocab_size_divisible_by", int_key(LG_FIELD(model.make_vocab_size_divisible_by), 1, 1 << 20)},
                {"seq_length", int_key(LG_FIELD(model.seq_length), 1, 1 << 24)},
                {"max_position_embeddings", int_key(LG_FIELD(model.max_position_embeddings), 1, 1 << 24)},
                {"activation", enum_key(LG_FIELD(model.activation), {"swiglu", "gelu", "squared_relu", "geglu"})},
                {"normalization", enum_key(LG_FIELD(model.normalization), {"RMSNorm", "LayerNorm"})},
                {"add_bias_linear", bool_key(LG_FIELD(model.add_bias_linear))},
                {"add_qkv_bias", bool_key(LG_FIELD(model.add_qkv_bias))},
                {"qk_layernorm", bool_key(LG_FIELD(model.qk_layernorm))},
                {"untie_embeddings_and_output_weights", bool_key(LG_FIELD(model.untie_embeddings_and_output_weights))},
                {"position_embedding_type", choice_key(LG_FIELD(model.position_embedding_type), {"rope", "learned_absolute", "none", "yarn", "mrope"})},
                {"hidden_dropout", number_key(LG_FIELD(model.hidden_dropout), 0.0, 1.0)},
                {"attention_dropout", number_key(LG_FIELD(model.attention_dropout), 0.0, 1.0)},
                {"mtp_num_layers", int_key(LG_FIELD(model.mtp_num_layers), 0, 64)},
                {"published_parameters", int_key(LG_FIELD(model.published_parameters), 0, std::numeric_limits<std::int64_t>::max())}}, {}});
  s.push_back({"model.moe",
               {{"num_experts", [](TomlReader& r, const toml::node& n) { if (auto v = r.integer(n, 1, 1 << 16)) { ensure_moe(r.spec()).num_experts = static_cast<int>(*v); } }},
                {"moe_ffn_hidden_size", [](TomlReader& r, const toml::node& n) { if (auto v = r.integer(n, 1, 1 << 22)) { ensure_moe(r.spec()).moe_ffn_hidden_size = static_cast<int>(*v); } }},
                {"router_topk", [](TomlReader& r, const toml::node& n) { if (auto v = r.integer(n, 1, 1024)) { ensure_moe(r.spec()).router_topk = static_cast<int>(*v); } }},
                {"shared_expert_intermediate_size", [](TomlReader& r, const toml::node& n) { if (auto v = r.integer(n, 0, 1 << 22)) { ensure_moe(r.spec()).shared_expert_intermediate_size = static_cast<int>(*v); } }},
                {"layer_freq", set_layer_freq},
                {"token_dispatcher", [](TomlReader& r, const toml::node& n) { const std::vector<std::string> names = {"alltoall", "allgather", "flex"}; if (auto i = r.choice(n, names)) { ensure_moe(r.spec()).token_dispatcher = names[*i]; } }},
                {"flex_backend", [](TomlReader& r, const toml::node& n) { const std::vector<std::string> names = {"deepep", "hybridep", "ncclep"}; if (auto i = r.choice(n, names)) { ensure_moe(r.spec()).flex_backend = names[*i]; } }},
                {"deepep_num_sms", [](TomlReader& r, const toml::node& n) { if (auto v = r.integer(n, 2, 1024)) { ensure_moe(r.spec()).deepep_num_sms = static_cast<int>(*v); } }},
                {"enable_deepep", [](TomlReader& r, const toml::node& n) { if (auto v = r.boolean(n)) { ensure_moe(r.spec()).enable_deepep = *v; } }},
                {"router_bias", [](TomlReader& r, const toml::node& n) { if (auto v = r.boolean(n)) { ensure_moe(r.spec()).router_bias = *v; } }},
                {"shared_expert_gate", [](TomlReader& r, const toml::node& n) { if (auto v = r.boolean(n)) { ensure_moe(r.spec()).shared_expert_gate = *v; } }},
                {"grouped_gemm", [](TomlReader& r, const toml::node& n) { if (auto v = r.boolean(n)) { ensure_moe(r.spec()).grouped_gemm = *v; } }}}, {}});
  s.push_back({"model.mla",
               {{"q_lora_rank", [](TomlReader& r, const toml::node& n) { if (auto v = r.integer(n, 0, 1 << 20)) { ensure_mla(r.spec()).q_lora_rank = static_cast<int>(*v); } }},
                {"kv_lora_rank", [](TomlReader& r, const toml::node& n) { if (auto v = r.integer(n, 1, 1 << 20)) { ensure_mla(r.spec()).kv_lora_rank = static_cast<int>(*v); } }},
                {"qk_head_dim", [](TomlReader& r, const toml::node& n) { if (auto v = r.integer(n, 1, 1 << 16)) { ensure_mla(r.spec()).qk_head_dim = static_cast<int>(*v); } }},
                {"qk_pos_emb_head_dim", [](TomlReader& r, const toml::node& n) { if (auto v = r.integer(n, 0, 1 << 16)) { ensure_mla(r.spec()).qk_pos_emb_head_dim = static_cast<int>(*v); } }},
                {"v_head_dim", [](TomlReader& r, const toml::node& n) { if (auto v = r.integer(n, 1, 1 << 16)) { ensure_mla(r.spec()).v_head_dim = static_cast<int>(*v); } }}}, {}});
  s.push_back({"parallelism",
               {{"tp", int_key(LG_FIELD(parallelism.tp), 1, 1024)},
                {"pp", int_key(LG_FIELD(parallelism.pp), 1, 1024)},
                {"vpp", int_key(LG_FIELD(parallelism.vpp), 1, 1024)},
                {"cp", int_key(LG_FIELD(parallelism.cp), 1, 1024)},
                {"ep", int_key(LG_FIELD(parallelism.ep), 1, 4096)},
                {"etp", int_key(LG_FIELD(parallelism.etp), 1, 1024)},
                {"sequence_parallel", bool_key(LG_FIELD(parallelism.sequence_parallel))},
                {"first_stage_layers", int_key(LG_FIELD(parallelism.first_stage_layers), 0, 10000)},
                {"last_stage_layers", int_key(LG_FIELD(parallelism.last_stage_layers), 0, 10000)},
                {"pipeline_layout", set_pipeline_layout},
                {"account_for_embedding_in_pipeline_split", bool_key(LG_FIELD(parallelism.account_for_embedding_in_pipeline_split))},
                {"account_for_loss_in_pipeline_split", bool_key(LG_FIELD(parallelism.account_for_loss_in_pipeline_split))},
                {"microbatch_group_size_per_vp_stage", int_key(LG_FIELD(parallelism.microbatch_group_size_per_vp_stage), 1, 1 << 20)}}, {}});
  s.push_back({"training",
               {{"micro_batch_size", int_key(LG_FIELD(training.micro_batch_size), 1, 1 << 20)},
                {"global_batch_size", int_key(LG_FIELD(training.global_batch_size), 1, 1 << 30)},
                {"precision", enum_key(LG_FIELD(training.precision), {"bf16", "fp16", "fp8-delayed", "fp8-cs", "fp8-blockwise", "mxfp8", "nvfp4"})},
                {"recompute", set_recompute},
                {"attention_backend", enum_key(LG_FIELD(training.attention_backend), {"fused", "flash", "unfused"})},
                {"distributed_optimizer", bool_key(LG_FIELD(training.distributed_optimizer))},
                {"fsdp", enum_key(LG_FIELD(training.fsdp), {"none", "megatron", "torch"})},
                {"fsdp_sharding", choice_key(LG_FIELD(training.fsdp_sharding), {"no_shard", "optim", "optim_grads", "optim_grads_params"})},
                {"cpu_offloading_layers", int_key(LG_FIELD(training.cpu_offloading_layers), 0, 10000)},
                {"fine_grained_activation_offloading", bool_key(LG_FIELD(training.fine_grained_activation_offloading))},
                {"cuda_graphs", enum_key(LG_FIELD(training.cuda_graphs), {"none", "local", "transformer_engine", "full_iteration"})},
                {"cuda_graph_modules", list_key(LG_FIELD(training.cuda_graph_modules))},
                {"nccl_ub", bool_key(LG_FIELD(training.nccl_ub))},
                {"tp_comm_overlap", bool_key(LG_FIELD(training.tp_comm_overlap))},
                {"overlap_grad_reduce", bool_key(LG_FIELD(training.overlap_grad_reduce))},
                {"overlap_param_gather", bool_key(LG_FIELD(training.overlap_param_gather))},
                {"overlap_moe_expert_parallel_comm", bool_key(LG_FIELD(training.overlap_moe_expert_parallel_comm))},
                {"delay_wgrad_compute", bool_key(LG_FIELD(training.delay_wgrad_compute))},
                {"fp8_param_gather", bool_key(LG_FIELD(training.fp8_param_gather))},
                {"offload_modules", list_key(LG_FIELD(training.offload_modules))},
                {"cross_entropy_fusion", choice_key(LG_FIELD(training.cross_entropy_fusion), {"none", "native", "te"})},
                {"unfused_softmax_in_fp32", bool_key(LG_FIELD(training.unfused_softmax_in_fp32))},
                {"defer_embedding_wgrad_compute", bool_key(LG_FIELD(training.defer_embedding_wgrad_compute))},
                {"wgrad_deferral_limit", int_key(LG_FIELD(training.wgrad_deferral_limit), 0, 1 << 20)},
                {"disable_parameter_transpose_cache", bool_key(LG_FIELD(training.disable_parameter_transpose_cache))},
                {"frozen", list_key(LG_FIELD(training.frozen))}}, {}});
  s.push_back({"training.recompute",
               {{"granularity", enum_key(LG_FIELD(training.recompute.granularity), {"none", "selective", "full"})},
                {"modules", list_key(LG_FIELD(training.recompute.modules))},
                {"method", enum_key(LG_FIELD(training.recompute.method), {"uniform", "block"})},
                {"num_layers", int_key(LG_FIELD(training.recompute.num_layers), 0, 10000)}}, {}});
  s.push_back({"training.optimizer",
               {{"name", choice_key(LG_FIELD(training.optimizer.name), {"adam", "sgd", "lion", "muon", "dist_muon"})},
                {"precision_aware", bool_key(LG_FIELD(training.optimizer.precision_aware))},
                {"grad_dtype", choice_key(LG_FIELD(training.optimizer.grad_dtype), {"fp32", "bf16"})},
                {"state_dtype", choice_key(LG_FIELD(training.optimizer.state_dtype), {"fp32", "bf16", "fp16", "fp8"})},
                {"cpu_offload_fraction", number_key(LG_FIELD(training.optimizer.cpu_offload_fraction), 0.0, 1.0)},
                {"distributed_instances", int_key(LG_FIELD(training.optimizer.distributed_instances), 1, 1024)},
                {"store_param_remainders", bool_key(LG_FIELD(training.optimizer.store_param_remainders))}}, {}});
  s.push_back({"peft",
               {{"method", choice_key(LG_FIELD(peft.method), {"none", "lora"})},
                {"rank", int_key(LG_FIELD(peft.rank), 1, 65536)},
                {"alpha", number_key(LG_FIELD(peft.alpha), 0.0, 1e9)},
                {"targets", list_key(LG_FIELD(peft.targets))},
                {"sequence_parallel_input_regather", bool_key(LG_FIELD(peft.sequence_parallel_input_regather))}}, {}});
  s.push_back({"cluster",
               {{"gpu", string_key(LG_FIELD(cluster.gpu))},
                {"nodes", int_key(LG_FIELD(cluster.nodes), 1, 100000)},
                {"gpus_per_node", int_key(LG_FIELD(cluster.gpus_per_node), 1, 1024)}}, {}});
  s.push_back({"slurm",
               {{"partition", string_key(LG_FIELD(slurm.partition))},
                {"account", string_key(LG_FIELD(slurm.account))},
                {"qos", string_key(LG_FIELD(slurm.qos))},
                {"time", string_key(LG_FIELD(slurm.time))},
                {"mem", string_key(LG_FIELD(slurm.mem))},
                {"extra_args", list_key(LG_FIELD(slurm.extra_args))},
                {"signal", string_key(LG_FIELD(slurm.signal))}}, {}});
  s.push_back({"launch",
               {{"template", string_key(LG_FIELD(launch.template_name))},
                {"framework", enum_key(LG_FIELD(launch.framework), {"megatron-bridge", "megatron-lm", "nemo"})},
                {"command", list_key(LG_FIELD(launch.command))},
                {"container_image", string_key(LG_FIELD(launch.container_image))},
                {"container_mounts", list_key(LG_FIELD(launch.container_mounts))},
                {"workdir", string_key(LG_FIELD(launch.workdir))},
                {"output", string_key(LG_FIELD(launch.output))}}, {}});
  s.push_back({"retry",
               {{"max_attempts", int_key(LG_FIELD(retry.max_attempts), 1, 100)},
                {"fixes", list_key(LG_FIELD(retry.fixes))}}, {}});
  s.push_back({"env", {}, str_map_entry()});
  return s;
}

#undef LG_FIELD

} // namespace

const std::vector<Section>& job_schema()
{
  static const std::vector<Section> schema = build_schema();
  return schema;
}

Section gpu_schema(GpuSpec& gpu)
{
  GpuSpec* g = &gpu;
  Section section{"gpu", {}, {}};
  section.keys["name"] = [g](TomlReader& r, const toml::node& n) { if (auto v = r.string(n)) { g->name = *v; } };
  section.keys["display_name"] = [g](TomlReader& r, const toml::node& n) { if (auto v = r.string(n)) { g->display_name = *v; } };
  section.keys["capacity_bytes"] = [g](TomlReader& r, const toml::node& n) { if (auto v = r.integer(n, 1, std::numeric_limits<std::int64_t>::max())) { g->capacity_bytes = *v; } };
  section.keys["generation"] = [g](TomlReader& r, const toml::node& n) { if (auto i = r.choice(n, {"ampere", "hopper", "blackwell"})) { g->generation = static_cast<GpuGeneration>(*i); } };
  section.keys["nvlink_domain"] = [g](TomlReader& r, const toml::node& n) { if (auto v = r.integer(n, 1, 1 << 16)) { g->nvlink_domain = static_cast<int>(*v); } };
  return section;
}

} // namespace lg::config
