#include "record_to_spec.hpp"

#include "config/megatron_args.hpp"
#include "util/error.hpp"

#include <regex>
#include <sstream>

namespace lg::bench {
namespace {

using nlohmann::json;

// Return record[a][b] as T when present and not null.
template <typename T>
std::optional<T> get(const json& obj, const char* key)
{
  if (!obj.is_object() || !obj.contains(key) || obj[key].is_null()) {
    return std::nullopt;
  }
  try {
    return obj[key].get<T>();
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

std::string lower(std::string s)
{
  for (auto& c : s) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

// moe_layer_freq: an integer f (i % f == 0), a Python list expression like
// "([0]*4+[1]*9)", or Moonlight's "first 1 layer dense".
std::vector<int> layer_pattern(const json& freq, int layers)
{
  std::vector<int> pattern;
  if (freq.is_number_integer()) {
    const int f = std::max(1, freq.get<int>());
    for (int i = 0; i < layers; ++i) {
      pattern.push_back(i % f == 0 ? 1 : 0);
    }
    return pattern;
  }
  if (!freq.is_string()) {
    return pattern;
  }
  const std::string text = freq.get<std::string>();
  const std::regex term(R"(\[(\d)\]\s*\*\s*(\d+))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), term); it != std::sregex_iterator();
       ++it) {
    pattern.insert(pattern.end(), std::stoul((*it)[2]), std::stoi((*it)[1]));
  }
  std::smatch first;
  if (pattern.empty() && std::regex_search(text, first, std::regex(R"(first (\d+))"))) {
    const int dense = std::stoi(first[1]);
    for (int i = 0; i < layers; ++i) {
      pattern.push_back(i < dense ? 0 : 1);
    }
  }
  return pattern;
}

bool map_model(const json& m, config::ModelSpec& model, std::string& why)
{
  const auto layers = get<int>(m, "num_layers");
  const auto hidden = get<int>(m, "hidden_size");
  const auto heads = get<int>(m, "num_attention_heads");
  const auto seq = get<int>(m, "seq_length");
  const auto vocab = get<std::int64_t>(m, "padded_vocab_size")
                         ? get<std::int64_t>(m, "padded_vocab_size")
                         : get<std::int64_t>(m, "vocab_size");
  if (!layers || !hidden || !heads || !seq || !vocab) {
    why = "model dims, seq_length or vocab missing";
    return false;
  }
  model.num_layers = *layers;
  model.hidden_size = *hidden;
  model.num_attention_heads = *heads;
  model.seq_length = *seq;
  model.vocab_size = *vocab;
  model.ffn_hidden_size = get<int>(m, "ffn_hidden_size").value_or(4 * *hidden);
  model.num_query_groups = get<int>(m, "num_query_groups").value_or(0);
  model.kv_channels = get<int>(m, "kv_channels").value_or(0);
  model.max_position_embeddings = get<int>(m, "max_position_embeddings").value_or(0);
  const std::string act = lower(get<std::string>(m, "activation").value_or("gelu"));
  model.activation = act.find("swiglu") != std::string::npos     ? config::Activation::swiglu
                     : act.find("squared") != std::string::npos  ? config::Activation::squared_relu
                     : act.find("geglu") != std::string::npos    ? config::Activation::geglu
                                                                 : config::Activation::gelu;
  model.normalization = lower(get<std::string>(m, "normalization").value_or("")) == "layernorm"
                            ? config::Normalization::layer_norm
                            : config::Normalization::rms_norm;
  model.add_bias_linear = get<bool>(m, "add_bias_linear").value_or(false);
  model.untie_embeddings_and_output_weights =
      get<bool>(m, "untie_embeddings_and_output_weights").value_or(true);
  const std::string pos = get<std::string>(m, "position_embedding_type").value_or("rope");
  model.position_embedding_type = pos.find("learned") != std::string::npos ? "learned_absolute"
                                  : pos.find("rope") != std::string::npos  ? "rope"
                                                                           : "none";
  model.qk_layernorm = get<bool>(m, "qk_layernorm").value_or(false);
  model.hidden_dropout = get<double>(m, "hidden_dropout").value_or(0.0);
  model.attention_dropout = get<double>(m, "attention_dropout").value_or(0.0);
  model.mtp_num_layers = get<int>(m, "mtp_num_layers").value_or(0);
  return true;
}

void map_moe_mla(const json& m, config::ModelSpec& model)
{
  if (m.contains("moe") && m["moe"].is_object()) {
    const json& e = m["moe"];
    config::MoeSpec moe;
    moe.num_experts = get<int>(e, "num_experts").value_or(0);
    moe.router_topk = get<int>(e, "topk").value_or(2);
    moe.moe_ffn_hidden_size = get<int>(e, "moe_ffn_hidden_size").value_or(model.ffn_hidden_size);
    moe.shared_expert_intermediate_size = get<int>(e, "shared_expert_intermediate_size").value_or(0);
    moe.token_dispatcher = get<std::string>(e, "token_dispatcher").value_or("alltoall");
    // null: Megatron-LM's default backend (--moe-flex-dispatcher-backend deepep)
    moe.flex_backend = get<std::string>(e, "flex_backend").value_or("deepep");
    moe.grouped_gemm = get<bool>(e, "grouped_gemm").value_or(moe.grouped_gemm);
    if (e.contains("moe_layer_freq")) {
      moe.layer_pattern = layer_pattern(e["moe_layer_freq"], model.num_layers);
    }
    model.moe = moe;
  }
  if (m.contains("mla") && m["mla"].is_object()) {
    const json& a = m["mla"];
    config::MlaSpec mla;
    mla.q_lora_rank = get<int>(a, "q_lora_rank").value_or(0);
    mla.kv_lora_rank = get<int>(a, "kv_lora_rank").value_or(512);
    mla.qk_head_dim = get<int>(a, "qk_head_dim").value_or(128);
    mla.qk_pos_emb_head_dim = get<int>(a, "qk_pos_emb_head_dim").value_or(64);
    mla.v_head_dim = get<int>(a, "v_head_dim").value_or(128);
    model.mla = mla;
  }
}

bool map_parallelism(const json& p, config::JobSpec& spec, std::string& why)
{
  const auto world = get<int>(p, "world_size");
  if (!world || !get<int>(p, "tp")) {
    why = "world size or TP missing";
    return false;
  }
  auto& par = spec.parallelism;
  par.tp = *get<int>(p, "tp");
  par.pp = get<int>(p, "pp").value_or(1);
  if (const auto vpp = get<int>(p, "vpp"); vpp && *vpp > 1) {
    par.vpp = *vpp;
  }
  if (const auto layout = get<std::string>(p, "pipeline_layout"); layout && par.pp > 1) {
    par.pipeline_layout = *layout;  // the layout decides the virtual stages
    par.vpp.reset();
  }
  par.cp = get<int>(p, "cp").value_or(1);
  par.ep = get<int>(p, "ep").value_or(1);
  if (const auto etp = get<int>(p, "etp")) {
    par.etp = *etp;
  }
  par.sequence_parallel = get<bool>(p, "sequence_parallel").value_or(false) && par.tp > 1;
  par.first_stage_layers = get<int>(p, "decoder_first_pipeline_num_layers");
  par.last_stage_layers = get<int>(p, "decoder_last_pipeline_num_layers");
  par.account_for_embedding_in_pipeline_split =
      get<bool>(p, "account_for_embedding_in_pipeline_split").value_or(false);
  par.account_for_loss_in_pipeline_split =
      get<bool>(p, "account_for_loss_in_pipeline_split").value_or(false);
  spec.cluster.nodes = 1;
  spec.cluster.gpus_per_node = *world;
  return true;
}

config::Precision precision_of(const json& pr)
{
  std::string recipe = lower(get<std::string>(pr, "fp8_recipe").value_or(""));
  recipe += lower(get<std::string>(pr, "fp8").value_or(""));
  if (recipe.empty()) {
    return config::Precision::bf16;
  }
  if (recipe.find("block") != std::string::npos) {
    return config::Precision::fp8_blockwise;
  }
  if (recipe.find("mx") != std::string::npos) {
    return config::Precision::mxfp8;
  }
  if (recipe.find("delayed") != std::string::npos) {
    return config::Precision::fp8_delayed;
  }
  return config::Precision::fp8_cs;
}

void map_recompute(const json& rc, config::RecomputeSpec& r)
{
  const std::string g = lower(get<std::string>(rc, "granularity").value_or(""));
  r.granularity = g == "full"        ? config::RecomputeGranularity::full
                  : g == "selective" ? config::RecomputeGranularity::selective
                                     : config::RecomputeGranularity::none;
  r.method = lower(get<std::string>(rc, "method").value_or("uniform")) == "block"
                 ? config::RecomputeMethod::block
                 : config::RecomputeMethod::uniform;
  r.num_layers = get<int>(rc, "num_layers").value_or(1);
  if (rc.is_object() && rc.contains("modules") && rc["modules"].is_array()) {
    for (const auto& m : rc["modules"]) {
      r.modules.push_back(m.get<std::string>());
    }
  } else if (const auto text = get<std::string>(rc, "modules")) {
    std::string cleaned;
    for (char c : *text) {
      cleaned += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : ' ';
    }
    std::istringstream words(cleaned);
    for (std::string w; words >> w;) {
      r.modules.push_back(w);
    }
  }
}

void map_optimizer(const json& o, const json& pr, config::TrainingSpec& t)
{
  t.distributed_optimizer = get<bool>(o, "distributed_optimizer").value_or(false);
  t.optimizer.precision_aware = get<bool>(o, "precision_aware_optimizer").value_or(false);
  if (!get<bool>(pr, "grad_reduce_in_fp32").value_or(true)) {
    t.optimizer.grad_dtype = "bf16";
  }
  if (const auto g = get<std::string>(o, "main_grads_dtype")) {
    t.optimizer.grad_dtype = lower(*g).find("bf16") != std::string::npos ? "bf16" : "fp32";
  }
  if (const auto s = get<std::string>(o, "exp_avg_dtype")) {
    t.optimizer.state_dtype = lower(*s).find("bf16") != std::string::npos ? "bf16" : "fp32";
  }
  if (get<bool>(o, "optimizer_cpu_offload").value_or(false)) {
    t.optimizer.cpu_offload_fraction = get<double>(o, "optimizer_offload_fraction").value_or(1.0);
  }
  if (get<bool>(o, "megatron_fsdp").value_or(false)) {
    t.fsdp = config::Fsdp::megatron;
    t.fsdp_sharding = get<std::string>(o, "dp_sharding_strategy").value_or("optim_grads_params");
  } else if (get<bool>(o, "torch_fsdp2").value_or(false)) {
    t.fsdp = config::Fsdp::torch;
  }
}

void map_other(const json& other, config::JobSpec& spec, bool& expandable)
{
  auto& t = spec.training;
  const std::string backend = lower(get<std::string>(other, "--attention-backend").value_or(""));
  const std::string impl = lower(get<std::string>(other, "--transformer-impl").value_or(""));
  // The local (non-TE) implementation has no fused attention kernel.
  if (backend == "unfused" || backend == "local" || impl == "local") {
    t.attention_backend = config::AttentionBackend::unfused;
  }
  t.cpu_offloading_layers = get<int>(other, "--cpu-offloading-num-layers")
                                .value_or(get<int>(other, "cpu_offloading_num_layers").value_or(0));
  const std::string conf = get<std::string>(other, "PYTORCH_CUDA_ALLOC_CONF").value_or("");
  expandable = conf.find("expandable_segments:True") != std::string::npos;
}

void map_peft(const json& p, config::JobSpec& spec)
{
  if (!p.is_object() || lower(get<std::string>(p, "type").value_or("")) != "lora") {
    return;
  }
  spec.peft.method = "lora";
  spec.peft.rank = get<int>(p, "rank").value_or(16);
  spec.peft.sequence_parallel_input_regather =
      get<bool>(p, "sequence_parallel_input_regather").value_or(false);
}

void map_training(const json& r, config::JobSpec& spec, bool& expandable)
{
  const json none;
  const auto field = [&](const char* key) -> const json& {
    return r.contains(key) ? r[key] : none;
  };
  spec.training.precision = precision_of(field("precision"));
  spec.training.fp8_param_gather = get<bool>(field("precision"), "fp8_param_gather").value_or(false);
  map_recompute(field("recompute"), spec.training.recompute);
  map_optimizer(field("optimizer"), field("precision"), spec.training);
  map_other(field("other_settings"), spec, expandable);
  map_peft(field("peft"), spec);
}

// The Megatron command line of a functional-test record (raw_model_args, a
// flag -> value map; true = a bare switch), as argv.
std::vector<std::string> record_argv(const json& args)
{
  std::vector<std::string> argv = {"pretrain_gpt.py"};
  for (const auto& [flag, value] : args.items()) {
    if (flag.rfind("--", 0) != 0) {
      continue;
    }
    if (value.is_boolean()) {
      if (value.get<bool>()) {
        argv.push_back(flag);
      }
      continue;
    }
    argv.push_back(flag);
    argv.push_back(value.is_string() ? value.get<std::string>() : value.dump());
  }
  return argv;
}

// The memory features the product's Megatron reader understands (layouts,
// offload modules, cross-entropy fusion, deferred wgrad, optimizer
// instances, optimizers, frozen parts, not-modelled flags), read by that
// reader from the record's command line and copied into `spec`.
void map_memory_flags(const json& record, config::JobSpec& spec)
{
  json args = json::object();
  for (const char* key : {"raw_model_args", "other_settings"}) {
    if (record.contains(key) && record[key].is_object()) {
      for (const auto& [k, v] : record[key].items()) {
        args[k] = v;
      }
    }
  }
  if (!args.contains("--num-layers")) {
    args["--num-layers"] = std::max(1, spec.model.num_layers);
    args["--hidden-size"] = std::max(1, spec.model.hidden_size);
    args["--num-attention-heads"] = std::max(1, spec.model.num_attention_heads);
  }
  config::JobSpec read;
  try {
    read = config::job_from_megatron_args(record_argv(args), {});
  } catch (const lg::Error&) {
    return;
  }
  auto& p = spec.parallelism;
  auto& t = spec.training;
  if (!read.parallelism.pipeline_layout.empty()) {
    p.pipeline_layout = read.parallelism.pipeline_layout;
    p.vpp.reset();  // the layout decides the virtual stages
  }
  // The record's parallelism block may say what its argument excerpt leaves
  // out: either source turning the split accounting on turns it on.
  p.account_for_embedding_in_pipeline_split = p.account_for_embedding_in_pipeline_split ||
                                              read.parallelism.account_for_embedding_in_pipeline_split;
  p.account_for_loss_in_pipeline_split =
      p.account_for_loss_in_pipeline_split || read.parallelism.account_for_loss_in_pipeline_split;
  p.microbatch_group_size_per_vp_stage = read.parallelism.microbatch_group_size_per_vp_stage;
  if (read.training.fine_grained_activation_offloading) {
    t.fine_grained_activation_offloading = true;
    t.offload_modules = read.training.offload_modules;
  }
  t.cross_entropy_fusion = read.training.cross_entropy_fusion;
  t.unfused_softmax_in_fp32 = read.training.unfused_softmax_in_fp32;
  t.defer_embedding_wgrad_compute = read.training.defer_embedding_wgrad_compute;
  t.wgrad_deferral_limit = read.training.wgrad_deferral_limit;
  t.optimizer.distributed_instances = read.training.optimizer.distributed_instances;
  if (args.contains("--optimizer")) {
    t.optimizer.name = read.training.optimizer.name;
  }
  if (read.training.cuda_graphs != config::CudaGraphs::none) {
    t.cuda_graphs = read.training.cuda_graphs;
    t.cuda_graph_modules = read.training.cuda_graph_modules;
  }
  t.frozen = read.training.frozen;
  spec.not_modelled = read.not_modelled;
}

// Records that name a Megatron Bridge perf recipe this repository mirrors in
// examples/ get that recipe's memory settings (the record states them only as
// "at Bridge HEAD"); see examples/llama3-70b-sft-h100.toml.
void map_named_recipe(const json& record, Mapped& out)
{
  const std::string framework = record.value("framework", "");
  const json& src = record.contains("source") ? record["source"] : json();
  const json& model = record.contains("model") ? record["model"] : json();
  // Megatron Bridge PR #3880's Qwen3-30B-A3B table ("pretrain on 16x H100,
  // BF16, all-to-all dispatch, CUDA graphs off, EP overlap off, MBS=1") is the
  // H100 BF16 performance workload (v0.5.0 fcbb6031103d0ca845c1a54d4fee55ecfcca17b6
  // scripts/performance/configs/qwen/qwen3_workload_base_configs.py:458-467: 16
  // GPUs, GBS 1024, EP 16) with those overrides: set_qwen3_common_configs
  // (configs/qwen/qwen3_llm_pretrain.py:31-46) turns grad_reduce_in_fp32 off, and
  // the recipe (recipes/qwen/qwen3_moe.py qwen3_30b_a3b_pretrain_config:79-80)
  // uses Transformer Engine's fused cross-entropy.
  if (src.value("url", "").find("Megatron-Bridge/pull/3880") != std::string::npos &&
      model.value("name", "") == "Qwen3-30B-A3B") {
    out.spec.training.optimizer.grad_dtype = "bf16";
    out.spec.training.cross_entropy_fusion = "te";
    return;
  }
  if (framework.find("llama3_70b") == std::string::npos ||
      framework.find("fp8_cs") == std::string::npos) {
    return;
  }
  auto& t = out.spec.training;
  t.fp8_param_gather = true;  // bf16_with_fp8_current_scaling_mixed
  t.cross_entropy_fusion = "te";  // perf_recipes/_common.py _benchmark_common
  t.defer_embedding_wgrad_compute = true;
  t.wgrad_deferral_limit = 22;
  t.tp_comm_overlap = true;
  t.disable_parameter_transpose_cache = true;
  t.cuda_graphs = config::CudaGraphs::transformer_engine;
  t.cuda_graph_modules = {"mlp"};
  // The skills tables were measured for Bridge PR #3107 (2026-04-02), when
  // report_memory ran once after iteration 1 (PR #3169 moved it to 2).
  const json& source = record.contains("source") ? record["source"] : json();
  out.first_iteration_report = source.value("related", "").find("pull/3107") != std::string::npos;
}

} // namespace

std::optional<Mapped> record_to_spec(const json& record, std::string& why)
{
  Mapped out;
  auto& spec = out.spec;
  if (!record.contains("model") || !map_model(record["model"], spec.model, why)) {
    if (why.empty()) {
      why = "no model";
    }
    return std::nullopt;
  }
  map_moe_mla(record["model"], spec.model);
  spec.model.make_vocab_size_divisible_by = 1;  // the record's vocab is already padded
  if (!record.contains("parallelism") || !map_parallelism(record["parallelism"], spec, why)) {
    return std::nullopt;
  }
  const json& b = record.contains("batch") ? record["batch"] : json();
  const auto mbs = get<int>(b, "micro_batch_size");
  const auto gbs = get<int>(b, "global_batch_size");
  if (!mbs || !gbs) {
    why = "micro/global batch size missing";
    return std::nullopt;
  }
  spec.training.micro_batch_size = *mbs;
  spec.training.global_batch_size = *gbs;
  map_training(record, spec, out.expandable_segments);
  map_memory_flags(record, spec);
  map_named_recipe(record, out);
  const std::string rank = lower(get<std::string>(record["measured"], "rank").value_or(""));
  out.last_rank = rank.find("last") != std::string::npos;
  spec.cluster.gpu_info.capacity_bytes = 85027979264;  // presets/gpus/h100-80gb.toml
  return out;
}

} // namespace lg::bench
