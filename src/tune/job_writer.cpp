#include "tune/job_writer.hpp"

#include <fmt/core.h>

#include <sstream>

namespace lg::tune {
namespace {

std::string quoted(const std::string& text)
{
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    case '\r': out += "\\r"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        out += fmt::format("\\u{:04x}", static_cast<int>(c));
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

std::string list(const std::vector<std::string>& items)
{
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i ? ", " : "") + quoted(items[i]);
  }
  return out + "]";
}

const char* flag(bool value)
{
  return value ? "true" : "false";
}

const char* activation(config::Activation a)
{
  switch (a) {
  case config::Activation::swiglu: return "swiglu";
  case config::Activation::gelu: return "gelu";
  case config::Activation::squared_relu: return "squared_relu";
  case config::Activation::geglu: return "geglu";
  }
  return "swiglu";
}

const char* attention_backend(config::AttentionBackend b)
{
  switch (b) {
  case config::AttentionBackend::fused: return "fused";
  case config::AttentionBackend::flash: return "flash";
  case config::AttentionBackend::unfused: return "unfused";
  }
  return "fused";
}

void model(std::ostringstream& o, const config::ModelSpec& m)
{
  o << "[model]\n";
  if (!m.preset.empty()) {
    o << "preset = " << quoted(m.preset) << "\n";
  }
  o << "num_layers = " << m.num_layers << "\nhidden_size = " << m.hidden_size
    << "\nffn_hidden_size = " << m.ffn_hidden_size << "\nnum_attention_heads = " << m.num_attention_heads
    << "\nnum_query_groups = " << config::num_query_groups(m) << "\nkv_channels = " << config::kv_channels(m)
    << "\nvocab_size = " << m.vocab_size << "\nmake_vocab_size_divisible_by = " << m.make_vocab_size_divisible_by
    << "\nseq_length = " << m.seq_length << "\n";
  if (m.max_position_embeddings > 0) {
    o << "max_position_embeddings = " << m.max_position_embeddings << "\n";
  }
  o << "activation = " << quoted(activation(m.activation)) << "\nnormalization = "
    << quoted(m.normalization == config::Normalization::rms_norm ? "RMSNorm" : "LayerNorm")
    << "\nadd_bias_linear = " << flag(m.add_bias_linear) << "\nadd_qkv_bias = " << flag(m.add_qkv_bias)
    << "\nqk_layernorm = " << flag(m.qk_layernorm)
    << "\nuntie_embeddings_and_output_weights = " << flag(m.untie_embeddings_and_output_weights)
    << "\nposition_embedding_type = " << quoted(m.position_embedding_type)
    << "\nhidden_dropout = " << fmt::format("{}", m.hidden_dropout)
    << "\nattention_dropout = " << fmt::format("{}", m.attention_dropout)
    << "\nmtp_num_layers = " << m.mtp_num_layers << "\n";
  if (m.moe) {
    const auto& e = *m.moe;
    o << "\n[model.moe]\nnum_experts = " << e.num_experts << "\nmoe_ffn_hidden_size = " << e.moe_ffn_hidden_size
      << "\nrouter_topk = " << e.router_topk
      << "\nshared_expert_intermediate_size = " << e.shared_expert_intermediate_size << "\n";
    if (!e.layer_pattern.empty()) {
      o << "layer_freq = [";
      for (std::size_t i = 0; i < e.layer_pattern.size(); ++i) {
        o << (i ? ", " : "") << e.layer_pattern[i];
      }
      o << "]\n";
    }
    o << "token_dispatcher = " << quoted(e.token_dispatcher) << "\nrouter_bias = " << flag(e.router_bias)
      << "\nshared_expert_gate = " << flag(e.shared_expert_gate) << "\n";
  }
  if (m.mla) {
    const auto& a = *m.mla;
    o << "\n[model.mla]\nq_lora_rank = " << a.q_lora_rank << "\nkv_lora_rank = " << a.kv_lora_rank
      << "\nqk_head_dim = " << a.qk_head_dim << "\nqk_pos_emb_head_dim = " << a.qk_pos_emb_head_dim
      << "\nv_head_dim = " << a.v_head_dim << "\n";
  }
}

void parallelism(std::ostringstream& o, const config::ParallelismSpec& p)
{
  o << "\n[parallelism]\ntp = " << p.tp << "\npp = " << p.pp << "\n";
  if (p.vpp) {
    o << "vpp = " << *p.vpp << "\n";
  }
  o << "cp = " << p.cp << "\nep = " << p.ep << "\n";
  if (p.etp) {
    o << "etp = " << *p.etp << "\n";
  }
  o << "sequence_parallel = " << flag(p.sequence_parallel) << "\n";
  if (p.first_stage_layers) {
    o << "first_stage_layers = " << *p.first_stage_layers << "\n";
  }
  if (p.last_stage_layers) {
    o << "last_stage_layers = " << *p.last_stage_layers << "\n";
  }
}

void training(std::ostringstream& o, const config::TrainingSpec& t)
{
  const auto& r = t.recompute;
  o << "\n[training]\nmicro_batch_size = " << t.micro_batch_size << "\nglobal_batch_size = " << t.global_batch_size
    << "\nprecision = " << quoted(config::to_string(t.precision)) << "\nrecompute = { granularity = "
    << quoted(config::to_string(r.granularity));
  if (r.granularity == config::RecomputeGranularity::selective) {
    o << ", modules = " << list(config::recompute_modules(r));
  } else if (r.granularity == config::RecomputeGranularity::full) {
    o << ", method = " << quoted(r.method == config::RecomputeMethod::uniform ? "uniform" : "block")
      << ", num_layers = " << r.num_layers;
  }
  const auto& opt = t.optimizer;
  o << " }\nattention_backend = " << quoted(attention_backend(t.attention_backend))
    << "\ndistributed_optimizer = " << flag(t.distributed_optimizer) << "\noptimizer = { name = "
    << quoted(opt.name) << ", precision_aware = " << flag(opt.precision_aware)
    << ", grad_dtype = " << quoted(opt.grad_dtype) << ", state_dtype = " << quoted(opt.state_dtype)
    << ", cpu_offload_fraction = " << fmt::format("{}", opt.cpu_offload_fraction) << " }\nfsdp = "
    << quoted(config::to_string(t.fsdp)) << "\n";
  if (t.fsdp != config::Fsdp::none) {
    o << "fsdp_sharding = " << quoted(t.fsdp_sharding) << "\n";
  }
  o << "cpu_offloading_layers = " << t.cpu_offloading_layers
    << "\nfine_grained_activation_offloading = " << flag(t.fine_grained_activation_offloading)
    << "\ncuda_graphs = " << quoted(config::to_string(t.cuda_graphs))
    << "\ncuda_graph_modules = " << list(t.cuda_graph_modules) << "\nnccl_ub = " << flag(t.nccl_ub)
    << "\ntp_comm_overlap = " << flag(t.tp_comm_overlap)
    << "\noverlap_grad_reduce = " << flag(t.overlap_grad_reduce)
    << "\noverlap_param_gather = " << flag(t.overlap_param_gather)
    << "\noverlap_moe_expert_parallel_comm = " << flag(t.overlap_moe_expert_parallel_comm)
    << "\ndelay_wgrad_compute = " << flag(t.delay_wgrad_compute)
    << "\nfp8_param_gather = " << flag(t.fp8_param_gather) << "\n";
}

} // namespace

std::string toml_string(const std::string& text)
{
  return quoted(text);
}

std::string job_toml(const config::JobSpec& spec, const std::string& comment)
{
  std::ostringstream o;
  std::istringstream lines(comment);
  for (std::string line; std::getline(lines, line);) {
    o << "# " << line << "\n";
  }
  o << "\n[job]\nname = " << quoted(spec.name) << "\n\n";
  model(o, spec.model);
  parallelism(o, spec.parallelism);
  training(o, spec.training);
  const auto& p = spec.peft;
  o << "\n[peft]\nmethod = " << quoted(p.method) << "\nrank = " << p.rank << "\nalpha = "
    << fmt::format("{}", p.alpha) << "\ntargets = " << list(p.targets)
    << "\nsequence_parallel_input_regather = " << flag(p.sequence_parallel_input_regather) << "\n";
  o << "\n[cluster]\ngpu = " << quoted(spec.cluster.gpu) << "\nnodes = " << spec.cluster.nodes
    << "\ngpus_per_node = " << spec.cluster.gpus_per_node << "\n";
  const auto& s = spec.slurm;
  o << "\n[slurm]\n";
  for (const auto& [key, value] : {std::pair{"partition", s.partition}, std::pair{"account", s.account},
                                   std::pair{"qos", s.qos}, std::pair{"time", s.time}, std::pair{"mem", s.mem},
                                   std::pair{"signal", s.signal}}) {
    if (!value.empty()) {
      o << key << " = " << quoted(value) << "\n";
    }
  }
  o << "extra_args = " << list(s.extra_args) << "\n";
  const auto& l = spec.launch;
  o << "\n[launch]\ntemplate = " << quoted(l.template_name) << "\nframework = "
    << quoted(config::to_string(l.framework)) << "\ncommand = " << list(l.command)
    << "\ncontainer_image = " << quoted(l.container_image) << "\ncontainer_mounts = " << list(l.container_mounts)
    << "\nworkdir = " << quoted(l.workdir) << "\noutput = " << quoted(l.output) << "\n";
  if (!spec.env.empty()) {
    o << "\n[env]\n";
    for (const auto& [key, value] : spec.env) {
      o << quoted(key) << " = " << quoted(value) << "\n";
    }
  }
  o << "\n[retry]\nmax_attempts = " << spec.retry.max_attempts << "\nfixes = " << list(spec.retry.fixes) << "\n";
  return o.str();
}

} // namespace lg::tune
