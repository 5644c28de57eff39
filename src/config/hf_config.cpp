// Field names and defaults: Hugging Face transformers' configuration_<arch>.py
// (LlamaConfig, MistralConfig, MixtralConfig, Qwen2Config, Qwen3Config,
// Qwen3MoeConfig, DeepseekV2Config, DeepseekV3Config, GptOssConfig,
// Gemma2Config, Gemma3TextConfig, Phi3Config, NemotronConfig); what Megatron
// Bridge fixes per architecture: Megatron-Bridge src/megatron/bridge/models/
// llama/llama_bridge.py, mistral/mistral_bridge.py, qwen/qwen2_bridge.py,
// qwen/qwen3_bridge.py, qwen/qwen3_moe_bridge.py, deepseek/deepseek_v2_bridge.py,
// deepseek/deepseek_v3_bridge.py, gpt_oss/gpt_oss_bridge.py,
// gemma/gemma2_bridge.py, gemma/gemma3_bridge.py, nemotron/nemotron_bridge.py.
#include "config/hf_config.hpp"

#include "util/error.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>

namespace lg::config {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::uintmax_t k_max_config_bytes = 4 * 1024 * 1024;  // config.json files are a few KB

SourceLocation location_at(std::string_view text, std::size_t byte, const std::string& file)
{
  SourceLocation where{file, 1, 1};
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++where.line;
      where.column = 1;
    } else {
      ++where.column;
    }
  }
  return where;
}

// The location of every object key, by dotted path ("text_config.hidden_size"),
// for messages. The text is valid JSON by now (nlohmann parsed it).
std::map<std::string, SourceLocation> key_locations(std::string_view text, const std::string& file)
{
  std::map<std::string, SourceLocation> out;
  std::vector<std::string> path;   // key of each open object ("" for arrays)
  std::vector<char> open;          // '{' or '['
  std::string last_key;
  int line = 1;
  int column = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const int key_line = line;
      const int key_column = column;
      std::string value;
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\') {
          ++j;
        }
        value += text[j];
      }
      column += static_cast<int>(j - i + 1);
      i = j;
      std::size_t k = i + 1;
      while (k < text.size() && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r')) {
        ++k;
      }
      if (k < text.size() && text[k] == ':' && !open.empty() && open.back() == '{') {
        std::string dotted;
        for (const auto& p : path) {
          if (!p.empty()) {
            dotted += p + ".";
          }
        }
        out.emplace(dotted + value, SourceLocation{file, key_line, key_column});
        last_key = value;
      }
      continue;
    }
    if (c == '{' || c == '[') {
      path.push_back(c == '{' ? last_key : "");
      open.push_back(c);
      last_key.clear();
    } else if (c == '}' || c == ']') {
      if (!path.empty()) {
        path.pop_back();
        open.pop_back();
      }
    } else if (c == ',') {
      last_key.clear();
    }
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return out;
}

// Typed reads of one config object, every problem collected.
class Fields
{
public:
  Fields(const json& object, std::string file, std::map<std::string, SourceLocation> locations, std::string prefix)
    : m_object(object),
      m_file(std::move(file)),
      m_locations(std::move(locations)),
      m_prefix(std::move(prefix))
  {
  }

  bool has(const std::string& name) const { return m_object.contains(name) && !m_object[name].is_null(); }

  SourceLocation where(const std::string& name) const
  {
    if (const auto it = m_locations.find(m_prefix + name); it != m_locations.end()) {
      return it->second;
    }
    return SourceLocation{m_file, 1, 1};
  }

  std::string at(const std::string& name) const
  {
    const auto w = where(name);
    return fmt::format("{}:{}:{}", w.file, w.line, w.column);
  }

  // An integer field; `fallback` when absent (nullopt: required).
  std::int64_t integer(const std::string& name, std::optional<std::int64_t> fallback, std::int64_t min = 0,
                       std::int64_t max = std::numeric_limits<int>::max())
  {
    if (!has(name)) {
      if (!fallback) {
        m_errors.push_back(fmt::format("{}: the field \"{}{}\" is required for this architecture but missing", m_file,
                                       m_prefix, name));
        return 0;
      }
      return *fallback;
    }
    const json& v = m_object[name];
    if (!v.is_number_integer()) {
      m_errors.push_back(fmt::format("{}: \"{}{}\" must be an integer, got {}", at(name), m_prefix, name, v.dump()));
      return 0;
    }
    const auto n = v.get<std::int64_t>();
    if (n < min || n > max) {
      m_errors.push_back(fmt::format("{}: \"{}{}\" must be between {} and {}, got {}", at(name), m_prefix, name, min, max, n));
      return 0;
    }
    m_read.push_back(name);
    return n;
  }

  bool boolean(const std::string& name, bool fallback)
  {
    if (!has(name)) {
      return fallback;
    }
    const json& v = m_object[name];
    if (!v.is_boolean()) {
      m_errors.push_back(fmt::format("{}: \"{}{}\" must be true or false, got {}", at(name), m_prefix, name, v.dump()));
      return fallback;
    }
    return v.get<bool>();
  }

  std::string string(const std::string& name, const std::string& fallback)
  {
    if (!has(name)) {
      return fallback;
    }
    const json& v = m_object[name];
    if (!v.is_string()) {
      m_errors.push_back(fmt::format("{}: \"{}{}\" must be a string, got {}", at(name), m_prefix, name, v.dump()));
      return fallback;
    }
    return v.get<std::string>();
  }

  const json& raw(const std::string& name) const { return m_object[name]; }
  std::vector<std::string>& errors() { return m_errors; }
  const std::string& file() const { return m_file; }

private:
  const json& m_object;
  std::string m_file;
  std::map<std::string, SourceLocation> m_locations;
  std::string m_prefix;
  std::vector<std::string> m_errors;
  std::vector<std::string> m_read;
};

enum class Family {
  llama,
  mistral,
  mixtral,
  qwen2,
  qwen3,
  qwen3_moe,
  deepseek_v2,
  deepseek_v3,
  gpt_oss,
  gemma2,
  gemma3,
  phi3,
  nemotron
};

struct Architecture
{
  const char* name;        // architectures[0]
  const char* model_type;  // model_type
  Family family;
};

constexpr Architecture k_architectures[] = {
  {"LlamaForCausalLM", "llama", Family::llama},
  {"MistralForCausalLM", "mistral", Family::mistral},
  {"MixtralForCausalLM", "mixtral", Family::mixtral},
  {"Qwen2ForCausalLM", "qwen2", Family::qwen2},
  {"Qwen3ForCausalLM", "qwen3", Family::qwen3},
  {"Qwen3MoeForCausalLM", "qwen3_moe", Family::qwen3_moe},
  {"DeepseekV2ForCausalLM", "deepseek_v2", Family::deepseek_v2},
  {"DeepseekV3ForCausalLM", "deepseek_v3", Family::deepseek_v3},
  {"GptOssForCausalLM", "gpt_oss", Family::gpt_oss},
  {"Gemma2ForCausalLM", "gemma2", Family::gemma2},
  {"Gemma3ForCausalLM", "gemma3_text", Family::gemma3},
  {"Gemma3ForConditionalGeneration", "gemma3", Family::gemma3},
  {"Phi3ForCausalLM", "phi3", Family::phi3},
  {"NemotronForCausalLM", "nemotron", Family::nemotron},
};

// Known architectures the estimator cannot model, and why.
const std::map<std::string, std::string>& not_modelled_architectures()
{
  static const std::map<std::string, std::string> m = {
    {"NemotronHForCausalLM", "Nemotron-H interleaves Mamba-2 layers with attention; the estimator models transformer layers only"},
    {"nemotron_h", "Nemotron-H interleaves Mamba-2 layers with attention; the estimator models transformer layers only"},
    {"Qwen3NextForCausalLM", "Qwen3-Next uses gated DeltaNet (linear attention) layers; the estimator models softmax attention only"},
    {"qwen3_next", "Qwen3-Next uses gated DeltaNet (linear attention) layers; the estimator models softmax attention only"},
    {"MambaForCausalLM", "Mamba layers are not modelled"},
    {"Phi3SmallForCausalLM", "Phi-3-small's block-sparse attention and its own MLP are not modelled"},
  };
  return m;
}

std::string known_names()
{
  std::vector<std::string> names;
  for (const auto& a : k_architectures) {
    names.emplace_back(a.name);
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

void warn(JobSpec& spec, const Fields& f, const std::string& field, std::string message)
{
  spec.input_findings.push_back(Diagnostic{Severity::warning, "input.hf_not_modelled", std::move(message),
                                           "treat the memory estimate as approximate for this part of the model",
                                           f.where(field)});
}

// Record the location of the HF field each model key came from.
void locate(JobSpec& spec, const Fields& f, const std::string& job_key, const std::string& field)
{
  if (f.has(field)) {
    spec.locations[job_key] = f.where(field);
  }
}

void read_model(JobSpec& spec, Fields& f, Family family)
{
  ModelSpec& m = spec.model;
  const ModelSpec before = m;
  m = ModelSpec{};
  m.preset = before.preset;
  m.seq_length = before.seq_length;  // the training sequence length is the job's, not the model's
  const bool moe_family = family == Family::mixtral || family == Family::qwen3_moe || family == Family::deepseek_v2 ||
                          family == Family::deepseek_v3 || family == Family::gpt_oss;
  m.num_layers = static_cast<int>(f.integer("num_hidden_layers", std::nullopt, 1, 10000));
  m.hidden_size = static_cast<int>(f.integer("hidden_size", std::nullopt, 1, 1 << 20));
  m.num_attention_heads = static_cast<int>(f.integer("num_attention_heads", std::nullopt, 1, 65536));
  m.num_query_groups = static_cast<int>(f.integer("num_key_value_heads", m.num_attention_heads, 1, 65536));
  const std::int64_t default_head = m.num_attention_heads > 0 ? m.hidden_size / m.num_attention_heads : 0;
  // Gemma 2/3 set head_dim in every config (256, 128); Llama 3.x has it too.
  m.kv_channels = static_cast<int>(f.integer("head_dim", default_head, 1, 65536));
  m.vocab_size = f.integer("vocab_size", std::nullopt, 1, 100000000);
  // The Bridge's make_vocab_size_divisible_by: largest power of two <= 128
  // dividing vocab_size (model_bridge.py), except where a bridge fixes it.
  m.make_vocab_size_divisible_by = 1;
  for (int d = 128; d >= 1; d /= 2) {
    if (m.vocab_size > 0 && m.vocab_size % d == 0) {
      m.make_vocab_size_divisible_by = d;
      break;
    }
  }
  m.max_position_embeddings = static_cast<int>(f.integer("max_position_embeddings", 0, 0, 1 << 24));
  if (m.max_position_embeddings == 0) {
    m.max_position_embeddings = before.max_position_embeddings;
  }
  // Everything here is a decoder with RoPE, no dropout in training recipes.
  m.position_embedding_type = "rope";
  m.hidden_dropout = 0.0;
  m.attention_dropout = 0.0;
  m.normalization = Normalization::rms_norm;
  m.activation = Activation::swiglu;
  // tie_word_embeddings: PretrainedConfig's default is true; LlamaConfig,
  // MistralConfig, Qwen2/3 and DeepSeek configs default to false, Gemma to true.
  const bool tie_default = family == Family::gemma2 || family == Family::gemma3;
  m.untie_embeddings_and_output_weights = !f.boolean("tie_word_embeddings", tie_default);
  m.add_qkv_bias = f.boolean("attention_bias", false);
  m.add_bias_linear = f.boolean("mlp_bias", false);
  if (!moe_family || family == Family::qwen3_moe || family == Family::deepseek_v2 || family == Family::deepseek_v3) {
    m.ffn_hidden_size = static_cast<int>(f.integer("intermediate_size", std::nullopt, 1, 1 << 22));
  }
  const std::string act = f.string("hidden_act", f.string("hidden_activation", "silu"));
  if (act == "gelu_pytorch_tanh" || act == "gelu" || act == "gelu_new") {
    m.activation = Activation::geglu;
  } else if (act == "relu2") {
    m.activation = Activation::squared_relu;
  } else if (act != "silu" && act != "swish") {
    f.errors().push_back(fmt::format("{}: \"hidden_act\" = \"{}\" is an activation the estimator does not know", f.at("hidden_act"), act));
  }
  switch (family) {
    case Family::qwen2:
      // Qwen2 always has q/k/v biases (Qwen2Attention; qwen2_bridge.py add_qkv_bias = True).
      m.add_qkv_bias = true;
      if (f.boolean("use_sliding_window", false)) {
        warn(spec, f, "use_sliding_window", fmt::format("{}: use_sliding_window = true: sliding-window attention is modelled as full attention", f.file()));
      }
      break;
    case Family::qwen3:
    case Family::qwen3_moe:
      m.qk_layernorm = true;  // Qwen3Attention q_norm/k_norm (qwen3_bridge.py qk_layernorm = True)
      if (f.boolean("use_sliding_window", false)) {
        warn(spec, f, "use_sliding_window", fmt::format("{}: use_sliding_window = true: sliding-window attention is modelled as full attention", f.file()));
      }
      break;
    case Family::mistral:
    case Family::mixtral:
    case Family::phi3:
      if (f.has("sliding_window")) {
        warn(spec, f, "sliding_window",
             fmt::format("{}: sliding_window = {}: sliding-window attention is modelled as full attention", f.file(), f.raw("sliding_window").dump()));
      }
      break;
    case Family::gemma2:
    case Family::gemma3:
      m.qk_layernorm = family == Family::gemma3;  // Gemma3Attention q_norm/k_norm
      warn(spec, f, "num_hidden_layers",
           fmt::format("{}: Gemma's extra pre/post-feedforward norms (2 x hidden per layer) are not counted, and its "
                       "local sliding-window layers are modelled as full attention", f.file()));
      break;
    case Family::nemotron:
      // NemotronConfig: relu2 MLP without gating, LayerNorm1p (LayerNorm shapes), no biases.
      m.normalization = Normalization::layer_norm;
      break;
    default:
      break;
  }
  if (family == Family::mixtral || family == Family::gpt_oss) {
    MoeSpec moe;
    moe.num_experts = static_cast<int>(f.integer("num_local_experts", std::nullopt, 1, 1 << 16));
    moe.router_topk = static_cast<int>(f.integer("num_experts_per_tok", std::nullopt, 1, 1024));
    moe.moe_ffn_hidden_size = static_cast<int>(f.integer("intermediate_size", std::nullopt, 1, 1 << 22));
    m.ffn_hidden_size = moe.moe_ffn_hidden_size;
    moe.token_dispatcher = "alltoall";
    m.moe = moe;
  }
  if (family == Family::gpt_oss) {
    // gpt_oss_bridge.py: biases on every linear layer, QKV bias from attention_bias (default true).
    m.add_bias_linear = true;
    m.add_qkv_bias = f.boolean("attention_bias", true);
    warn(spec, f, "num_local_experts",
         fmt::format("{}: gpt-oss attention sinks and its alternating 128-token sliding-window layers are modelled as "
                     "full attention", f.file()));
  }
  if (family == Family::qwen3_moe) {
    MoeSpec moe;
    moe.num_experts = static_cast<int>(f.integer("num_experts", std::nullopt, 1, 1 << 16));
    moe.router_topk = static_cast<int>(f.integer("num_experts_per_tok", std::nullopt, 1, 1024));
    moe.moe_ffn_hidden_size = static_cast<int>(f.integer("moe_intermediate_size", std::nullopt, 1, 1 << 22));
    moe.token_dispatcher = "alltoall";
    // Qwen3MoeDecoderLayer: layer i is sparse unless listed in mlp_only_layers,
    // and when (i + 1) % decoder_sparse_step == 0.
    const int step = static_cast<int>(f.integer("decoder_sparse_step", 1, 1, 1000));
    std::vector<int> dense;
    if (f.has("mlp_only_layers")) {
      const json& list = f.raw("mlp_only_layers");
      if (!list.is_array()) {
        f.errors().push_back(fmt::format("{}: \"mlp_only_layers\" must be a list of layer indices, got {}", f.at("mlp_only_layers"), list.dump()));
      } else {
        for (const auto& item : list) {
          if (item.is_number_integer()) {
            dense.push_back(item.get<int>());
          }
        }
      }
    }
    if (step != 1 || !dense.empty()) {
      for (int i = 0; i < m.num_layers; ++i) {
        const bool sparse = std::find(dense.begin(), dense.end(), i) == dense.end() && (i + 1) % step == 0;
        moe.layer_pattern.push_back(sparse ? 1 : 0);
      }
    }
    m.moe = moe;
  }
  if (family == Family::deepseek_v2 || family == Family::deepseek_v3) {
    MoeSpec moe;
    moe.num_experts = static_cast<int>(f.integer("n_routed_experts", std::nullopt, 1, 1 << 16));
    moe.router_topk = static_cast<int>(f.integer("num_experts_per_tok", std::nullopt, 1, 1024));
    moe.moe_ffn_hidden_size = static_cast<int>(f.integer("moe_intermediate_size", std::nullopt, 1, 1 << 22));
    const auto shared = f.integer("n_shared_experts", 0, 0, 1024);
    moe.shared_expert_intermediate_size = static_cast<int>(shared * moe.moe_ffn_hidden_size);
    moe.token_dispatcher = "alltoall";
    // deepseek_v3_bridge.py: moe_router_enable_expert_bias = True (aux-loss-free balancing).
    moe.router_bias = family == Family::deepseek_v3;
    // DeepseekV3DecoderLayer: MoE where i >= first_k_dense_replace and i % moe_layer_freq == 0.
    const int first_dense = static_cast<int>(f.integer("first_k_dense_replace", 0, 0, 10000));
    const int freq = static_cast<int>(f.integer("moe_layer_freq", 1, 1, 1000));
    if (first_dense > 0 || freq > 1) {
      for (int i = 0; i < m.num_layers; ++i) {
        moe.layer_pattern.push_back(i >= first_dense && i % freq == 0 ? 1 : 0);
      }
    }
    m.moe = moe;
    MlaSpec mla;
    mla.q_lora_rank = static_cast<int>(f.integer("q_lora_rank", 0, 0, 1 << 20));
    mla.kv_lora_rank = static_cast<int>(f.integer("kv_lora_rank", std::nullopt, 1, 1 << 20));
    mla.qk_head_dim = static_cast<int>(f.integer("qk_nope_head_dim", std::nullopt, 1, 1 << 16));
    mla.qk_pos_emb_head_dim = static_cast<int>(f.integer("qk_rope_head_dim", std::nullopt, 0, 1 << 16));
    mla.v_head_dim = static_cast<int>(f.integer("v_head_dim", std::nullopt, 1, 1 << 16));
    m.mla = mla;
    m.kv_channels = mla.v_head_dim;
    m.qk_layernorm = true;  // the q_a/kv_a layernorms (deepseek_v*_bridge.py qk_layernorm = True)
    m.make_vocab_size_divisible_by = family == Family::deepseek_v3 ? 1280 : 3200;  // the bridges fix these
    if (family == Family::deepseek_v3) {
      m.mtp_num_layers = static_cast<int>(f.integer("num_nextn_predict_layers", 0, 0, 64));
    }
  }
  locate(spec, f, "model.num_layers", "num_hidden_layers");
  locate(spec, f, "model.hidden_size", "hidden_size");
  locate(spec, f, "model.ffn_hidden_size", "intermediate_size");
  locate(spec, f, "model.num_attention_heads", "num_attention_heads");
  locate(spec, f, "model.num_query_groups", "num_key_value_heads");
  locate(spec, f, "model.kv_channels", "head_dim");
  locate(spec, f, "model.vocab_size", "vocab_size");
  locate(spec, f, "model.untie_embeddings_and_output_weights", "tie_word_embeddings");
  locate(spec, f, "model.mtp_num_layers", "num_nextn_predict_layers");
  for (const char* field : {"num_local_experts", "num_experts", "n_routed_experts"}) {
    locate(spec, f, "model.moe.num_experts", field);
  }
  locate(spec, f, "model.moe.layer_freq", "first_k_dense_replace");
}

} // namespace

void apply_hf_config_text(JobSpec& spec, std::string_view text, const std::string& display_name)
{
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    const auto where = location_at(text, e.byte > 0 ? e.byte - 1 : 0, display_name);
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 4, column 14: syntax error …": keep the reason.
    if (const auto column = what.find("column "); column != std::string::npos) {
      if (const auto colon = what.find(": ", column); colon != std::string::npos) {
        what = what.substr(colon + 2);
      }
    }
    InputError error("{}:{}:{}: invalid JSON: {}", where.file, where.line, where.column, what);
    error.hint = "a Hugging Face config.json is one JSON object; check commas and quotes on that line";
    throw error;
  }
  if (!root.is_object()) {
    InputError error("{}: a Hugging Face config.json is a JSON object, got {}", display_name, root.type_name());
    throw error;
  }
  const auto locations = key_locations(text, display_name);
  std::string arch_name;
  if (root.contains("architectures") && root["architectures"].is_array() && !root["architectures"].empty() &&
      root["architectures"][0].is_string()) {
    arch_name = root["architectures"][0].get<std::string>();
  }
  const std::string model_type = root.contains("model_type") && root["model_type"].is_string()
                                   ? root["model_type"].get<std::string>()
                                   : "";
  const Architecture* arch = nullptr;
  for (const auto& a : k_architectures) {
    if (arch_name == a.name || (arch_name.empty() && model_type == a.model_type)) {
      arch = &a;
      break;
    }
  }
  if (arch == nullptr) {
    for (const auto& name : {arch_name, model_type}) {
      if (const auto it = not_modelled_architectures().find(name); it != not_modelled_architectures().end()) {
        InputError error("{}: architecture {} is not modelled: {}", display_name, name, it->second);
        error.hint = "give the model's shapes in a job file's [model] table instead, if an approximation will do";
        throw error;
      }
    }
    const std::string named = !arch_name.empty() ? fmt::format("\"architectures\": [\"{}\"]", arch_name)
                              : !model_type.empty() ? fmt::format("\"model_type\": \"{}\"", model_type)
                                                    : std::string("no \"architectures\" or \"model_type\" field");
    const auto where = locations.count("architectures") != 0 ? locations.at("architectures")
                       : locations.count("model_type") != 0 ? locations.at("model_type")
                                                            : SourceLocation{display_name, 1, 1};
    InputError error("{}:{}:{}: unknown Hugging Face architecture ({})", where.file, where.line, where.column, named);
    error.hint = fmt::format("known: {}", known_names());
    throw error;
  }
  // Gemma3ForConditionalGeneration: the language model is text_config.
  const bool nested = arch->family == Family::gemma3 && root.contains("text_config") && root["text_config"].is_object();
  const json& object = nested ? root["text_config"] : root;
  Fields fields(object, display_name, locations, nested ? "text_config." : "");
  read_model(spec, fields, arch->family);
  if (nested) {
    spec.input_findings.push_back(Diagnostic{Severity::warning, "input.hf_not_modelled",
                                             fmt::format("{}: the vision tower of {} is not modelled; the estimate covers the language model", display_name, arch->name),
                                             "treat the memory estimate as a lower bound", locations.count("vision_config") != 0 ? std::optional<SourceLocation>(locations.at("vision_config")) : std::nullopt});
  }
  if (!fields.errors().empty()) {
    InputError error("{}", fmt::join(fields.errors(), "\n"));
    error.hint = fmt::format("the config.json of a {} model carries these fields; is {} the model's own config.json?", arch->name, display_name);
    throw error;
  }
  spec.model.hf_config = display_name;
  spec.locations["model.hf_config"] = SourceLocation{display_name, 1, 1};
}

void apply_hf_config(JobSpec& spec, const fs::path& path)
{
  std::error_code ec;
  fs::path file = path;
  if (fs::is_directory(path, ec)) {
    file = path / "config.json";
  }
  if (!fs::exists(file, ec)) {
    InputError error("cannot read Hugging Face config '{}': no such file", file.string());
    error.hint = "give a model directory holding config.json, or the config.json itself";
    throw error;
  }
  if (!fs::is_regular_file(file, ec)) {
    InputError error("cannot read Hugging Face config '{}': not a regular file", file.string());
    error.hint = "give a model directory holding config.json, or the config.json itself";
    throw error;
  }
  if (fs::file_size(file, ec) > k_max_config_bytes) {
    InputError error("Hugging Face config '{}' is larger than {} MiB; a config.json is a few KB", file.string(),
                     k_max_config_bytes / (1024 * 1024));
    error.hint = "give the model's config.json, not a weights or tokenizer file";
    throw error;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    InputError error("cannot read Hugging Face config '{}': permission denied", file.string());
    throw error;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  apply_hf_config_text(spec, buffer.str(), file.string());
}

} // namespace lg::config
