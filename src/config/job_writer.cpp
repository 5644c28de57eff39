// Key and flag names: the job-file schema (schema.cpp) and the Megatron-LM
// flags read by megatron_args.cpp (megatron/training/arguments.py).
#include "config/job_writer.hpp"

#include "config/bridge_keys.hpp"

#include <fmt/format.h>

#include <sstream>

namespace lg::config {

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
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string list(const std::vector<std::string>& items)
{
  std::vector<std::string> q;
  for (const auto& item : items) {
    q.push_back(quoted(item));
  }
  return fmt::format("[{}]", fmt::join(q, ", "));
}

const char* b(bool v)
{
  return v ? "true" : "false";
}

std::string number(double v)
{
  std::string text = fmt::format("{}", v);
  if (text.find_first_of(".eE") == std::string::npos && text.find("inf") == std::string::npos) {
    text += ".0";
  }
  return text;
}

const char* activation_name(Activation a)
{
  switch (a) {
    case Activation::swiglu: return "swiglu";
    case Activation::gelu: return "gelu";
    case Activation::squared_relu: return "squared_relu";
    case Activation::geglu: return "geglu";
  }
  return "swiglu";
}

const char* backend_name(AttentionBackend a)
{
  return a == AttentionBackend::flash ? "flash" : a == AttentionBackend::unfused ? "unfused" : "fused";
}

std::string pattern_text(const std::vector<int>& pattern)
{
  std::vector<std::string> items;
  for (int v : pattern) {
    items.push_back(std::to_string(v));
  }
  return fmt::format("[{}]", fmt::join(items, ", "));
}

} // namespace

std::string toml_string(const std::string& text)
{
  return quoted(text);
}

std::string job_to_toml(const JobSpec& spec, const std::string& comment)
{
  std::ostringstream o;
  const auto& m = spec.model;
  std::istringstream lines(comment);
  for (std::string line; std::getline(lines, line);) {
    o << "# " << line << "\n";
  }
  o << "[job]\nname = " << quoted(spec.name) << "\n\n";
  o << "[model]\n";
  o << "num_layers = " << m.num_layers << "\nhidden_size = " << m.hidden_size << "\nffn_hidden_size = " << m.ffn_hidden_size
    << "\nnum_attention_heads = " << m.num_attention_heads << "\n";
  if (m.num_query_groups > 0) {
    o << "num_query_groups = " << m.num_query_groups << "\n";
  }
  if (m.kv_channels > 0) {
    o << "kv_channels = " << m.kv_channels << "\n";
  }
  o << "vocab_size = " << m.vocab_size << "\nmake_vocab_size_divisible_by = " << m.make_vocab_size_divisible_by
    << "\nseq_length = " << m.seq_length << "\n";
  if (m.max_position_embeddings > 0) {
    o << "max_position_embeddings = " << m.max_position_embeddings << "\n";
  }
  o << "activation = " << quoted(activation_name(m.activation)) << "\n";
  o << "normalization = " << quoted(m.normalization == Normalization::rms_norm ? "RMSNorm" : "LayerNorm") << "\n";
  o << "add_bias_linear = " << b(m.add_bias_linear) << "\nadd_qkv_bias = " << b(m.add_qkv_bias)
    << "\nqk_layernorm = " << b(m.qk_layernorm)
    << "\nuntie_embeddings_and_output_weights = " << b(m.untie_embeddings_and_output_weights)
    << "\nposition_embedding_type = " << quoted(m.position_embedding_type)
    << "\nhidden_dropout = " << number(m.hidden_dropout) << "\nattention_dropout = " << number(m.attention_dropout)
    << "\nmtp_num_layers = " << m.mtp_num_layers << "\n";
  if (m.published_parameters > 0) {
    o << "published_parameters = " << m.published_parameters << "\n";
  }
  if (m.moe) {
    o << "\n[model.moe]\nnum_experts = " << m.moe->num_experts << "\nmoe_ffn_hidden_size = " << m.moe->moe_ffn_hidden_size
      << "\nrouter_topk = " << m.moe->router_topk
      << "\nshared_expert_intermediate_size = " << m.moe->shared_expert_intermediate_size << "\n";
    if (m.moe->layer_pattern.empty()) {
      o << "layer_freq = 1\n";
    } else if (m.moe->layer_pattern.size() == 1 && m.moe->layer_pattern[0] < 0) {
      o << "layer_freq = " << -m.moe->layer_pattern[0] << "\n";
    } else {
      o << "layer_freq = " << pattern_text(m.moe->layer_pattern) << "\n";
    }
    if (m.moe->token_dispatcher == "flex") {
      o << "flex_backend = " << quoted(m.moe->flex_backend) << "\n";
      if (m.moe->deepep_num_sms > 0) {
        o << "deepep_num_sms = " << m.moe->deepep_num_sms << "\n";
      }
    }
    if (m.moe->enable_deepep) {
      o << "enable_deepep = true\n";
    }
    o << "token_dispatcher = " << quoted(m.moe->token_dispatcher) << "\nrouter_bias = " << b(m.moe->router_bias)
      << "\nshared_expert_gate = " << b(m.moe->shared_expert_gate)
      << "\ngrouped_gemm = " << b(m.moe->grouped_gemm) << "\n";
  }
  if (m.mla) {
    o << "\n[model.mla]\nq_lora_rank = " << m.mla->q_lora_rank << "\nkv_lora_rank = " << m.mla->kv_lora_rank
      << "\nqk_head_dim = " << m.mla->qk_head_dim << "\nqk_pos_emb_head_dim = " << m.mla->qk_pos_emb_head_dim
      << "\nv_head_dim = " << m.mla->v_head_dim << "\n";
  }
  const auto& p = spec.parallelism;
  o << "\n[parallelism]\ntp = " << p.tp << "\npp = " << p.pp << "\n";
  if (p.vpp) {
    o << "vpp = " << *p.vpp << "\n";
  }
  o << "cp = " << p.cp << "\nep = " << p.ep << "\n";
  if (p.etp) {
    o << "etp = " << *p.etp << "\n";
  }
  o << "sequence_parallel = " << b(p.sequence_parallel) << "\n";
  if (p.first_stage_layers) {
    o << "first_stage_layers = " << *p.first_stage_layers << "\n";
  }
  if (p.last_stage_layers) {
    o << "last_stage_layers = " << *p.last_stage_layers << "\n";
  }
  const auto& t = spec.training;
  o << "\n[training]\nmicro_batch_size = " << t.micro_batch_size << "\nglobal_batch_size = " << t.global_batch_size
    << "\nprecision = " << quoted(to_string(t.precision)) << "\nattention_backend = " << quoted(backend_name(t.attention_backend))
    << "\ndistributed_optimizer = " << b(t.distributed_optimizer) << "\nfsdp = " << quoted(to_string(t.fsdp))
    << "\nfsdp_sharding = " << quoted(t.fsdp_sharding) << "\ncpu_offloading_layers = " << t.cpu_offloading_layers
    << "\nfine_grained_activation_offloading = " << b(t.fine_grained_activation_offloading)
    << "\ncuda_graphs = " << quoted(to_string(t.cuda_graphs)) << "\ncuda_graph_modules = " << list(t.cuda_graph_modules)
    << "\nnccl_ub = " << b(t.nccl_ub) << "\ntp_comm_overlap = " << b(t.tp_comm_overlap)
    << "\noverlap_grad_reduce = " << b(t.overlap_grad_reduce) << "\noverlap_param_gather = " << b(t.overlap_param_gather)
    << "\noverlap_moe_expert_parallel_comm = " << b(t.overlap_moe_expert_parallel_comm)
    << "\ndelay_wgrad_compute = " << b(t.delay_wgrad_compute) << "\nfp8_param_gather = " << b(t.fp8_param_gather) << "\n";
  o << "\n[training.recompute]\ngranularity = " << quoted(to_string(t.recompute.granularity))
    << "\nmodules = " << list(t.recompute.modules)
    << "\nmethod = " << quoted(t.recompute.method == RecomputeMethod::block ? "block" : "uniform")
    << "\nnum_layers = " << t.recompute.num_layers << "\n";
  o << "\n[training.optimizer]\nname = " << quoted(t.optimizer.name) << "\nprecision_aware = " << b(t.optimizer.precision_aware)
    << "\ngrad_dtype = " << quoted(t.optimizer.grad_dtype) << "\nstate_dtype = " << quoted(t.optimizer.state_dtype)
    << "\ncpu_offload_fraction = " << number(t.optimizer.cpu_offload_fraction) << "\n";
  o << "\n[peft]\nmethod = " << quoted(spec.peft.method) << "\nrank = " << spec.peft.rank << "\nalpha = " << number(spec.peft.alpha)
    << "\ntargets = " << list(spec.peft.targets)
    << "\nsequence_parallel_input_regather = " << b(spec.peft.sequence_parallel_input_regather) << "\n";
  o << "\n[cluster]\ngpu = " << quoted(spec.cluster.gpu) << "\nnodes = " << spec.cluster.nodes
    << "\ngpus_per_node = " << spec.cluster.gpus_per_node << "\n";
  const auto& s = spec.slurm;
  o << "\n[slurm]\npartition = " << quoted(s.partition) << "\naccount = " << quoted(s.account) << "\nqos = " << quoted(s.qos)
    << "\ntime = " << quoted(s.time) << "\nmem = " << quoted(s.mem) << "\nextra_args = " << list(s.extra_args)
    << "\nsignal = " << quoted(s.signal) << "\n";
  const auto& l = spec.launch;
  o << "\n[launch]\ntemplate = " << quoted(l.template_name) << "\nframework = " << quoted(to_string(l.framework))
    << "\ncommand = " << list(l.command) << "\ncontainer_image = " << quoted(l.container_image)
    << "\ncontainer_mounts = " << list(l.container_mounts) << "\nworkdir = " << quoted(l.workdir)
    << "\noutput = " << quoted(l.output) << "\n";
  o << "\n[env]\n";
  for (const auto& [name, value] : spec.env) {
    o << quoted(name) << " = " << quoted(value) << "\n";
  }
  o << "\n[retry]\nmax_attempts = " << spec.retry.max_attempts << "\nfixes = " << list(spec.retry.fixes) << "\n";
  return o.str();
}

std::vector<std::string> job_to_bridge_overrides(const JobSpec& spec)
{
  std::vector<std::string> out;
  for (const auto& setting : bridge_settings_from_job(spec)) {
    out.push_back(setting.key + "=" + setting.value);
  }
  return out;
}

std::vector<std::string> job_to_megatron_args(const JobSpec& spec, std::vector<std::string>& lossy)
{
  std::vector<std::string> a;
  auto flag = [&](const std::string& name) { a.push_back("--" + name); };
  auto value = [&](const std::string& name, const std::string& v) {
    a.push_back("--" + name);
    a.push_back(v);
  };
  auto integer = [&](const std::string& name, long long v) { value(name, std::to_string(v)); };
  const auto& m = spec.model;
  integer("num-layers", m.num_layers);
  integer("hidden-size", m.hidden_size);
  integer("ffn-hidden-size", m.ffn_hidden_size);
  integer("num-attention-heads", m.num_attention_heads);
  if (m.num_query_groups > 0 && m.num_query_groups != m.num_attention_heads) {
    flag("group-query-attention");
    integer("num-query-groups", m.num_query_groups);
  }
  if (m.kv_channels > 0) {
    integer("kv-channels", m.kv_channels);
  }
  integer("seq-length", m.seq_length);
  integer("max-position-embeddings", m.max_position_embeddings > 0 ? m.max_position_embeddings : m.seq_length);
  integer("vocab-size", m.vocab_size);
  integer("make-vocab-size-divisible-by", m.make_vocab_size_divisible_by);
  if (m.activation == Activation::swiglu) {
    flag("swiglu");
  } else if (m.activation == Activation::squared_relu) {
    flag("squared-relu");
  } else if (m.activation == Activation::geglu) {
    lossy.emplace_back("activation geglu: Megatron-LM has no command-line flag for GeGLU (written as GELU)");
  }
  value("normalization", m.normalization == Normalization::rms_norm ? "RMSNorm" : "LayerNorm");
  if (!m.add_bias_linear) {
    flag("disable-bias-linear");
    if (m.add_qkv_bias) {
      flag("add-qkv-bias");
    }
  }
  if (m.qk_layernorm) {
    flag("qk-layernorm");
  }
  if (m.untie_embeddings_and_output_weights) {
    flag("untie-embeddings-and-output-weights");
  }
  value("position-embedding-type", m.position_embedding_type);
  value("hidden-dropout", fmt::format("{}", m.hidden_dropout));
  value("attention-dropout", fmt::format("{}", m.attention_dropout));
  if (m.mtp_num_layers > 0) {
    integer("mtp-num-layers", m.mtp_num_layers);
  }
  if (m.moe) {
    integer("num-experts", m.moe->num_experts);
    integer("moe-ffn-hidden-size", m.moe->moe_ffn_hidden_size);
    integer("moe-router-topk", m.moe->router_topk);
    if (m.moe->shared_expert_intermediate_size > 0) {
      integer("moe-shared-expert-intermediate-size", m.moe->shared_expert_intermediate_size);
    }
    value("moe-token-dispatcher-type", m.moe->token_dispatcher);
    if (m.moe->token_dispatcher == "flex") {
      value("moe-flex-dispatcher-backend", m.moe->flex_backend);
      if (m.moe->deepep_num_sms > 0) {
        integer("moe-deepep-num-sms", m.moe->deepep_num_sms);
      }
    }
    if (m.moe->enable_deepep) {
      flag("moe-enable-deepep");
    }
    if (m.moe->router_bias) {
      flag("moe-router-enable-expert-bias");
    }
    if (m.moe->grouped_gemm) {
      flag("moe-grouped-gemm");
    }
    if (!m.moe->layer_pattern.empty()) {
      std::vector<std::string> items;
      for (int v : m.moe->layer_pattern) {
        items.push_back(std::to_string(v));
      }
      value("moe-layer-freq", fmt::format("[{}]", fmt::join(items, ",")));
    }
    if (m.moe->shared_expert_gate) {
      lossy.emplace_back("moe shared_expert_gate: not read back from --moe-shared-expert-gate by launchguard");
    }
  }
  if (m.mla) {
    flag("multi-latent-attention");
    integer("q-lora-rank", m.mla->q_lora_rank);
    integer("kv-lora-rank", m.mla->kv_lora_rank);
    integer("qk-head-dim", m.mla->qk_head_dim);
    integer("qk-pos-emb-head-dim", m.mla->qk_pos_emb_head_dim);
    integer("v-head-dim", m.mla->v_head_dim);
  }
  const auto& p = spec.parallelism;
  integer("tensor-model-parallel-size", p.tp);
  integer("pipeline-model-parallel-size", p.pp);
  integer("context-parallel-size", p.cp);
  integer("expert-model-parallel-size", p.ep);
  if (p.etp) {
    integer("expert-tensor-parallel-size", *p.etp);
  }
  if (p.sequence_parallel) {
    flag("sequence-parallel");
  }
  if (p.vpp) {
    integer("num-virtual-stages-per-pipeline-rank", *p.vpp);
  }
  if (p.first_stage_layers) {
    integer("decoder-first-pipeline-num-layers", *p.first_stage_layers);
  }
  if (p.last_stage_layers) {
    integer("decoder-last-pipeline-num-layers", *p.last_stage_layers);
  }
  const auto& t = spec.training;
  integer("micro-batch-size", t.micro_batch_size);
  integer("global-batch-size", t.global_batch_size);
  switch (t.precision) {
    case Precision::bf16: flag("bf16"); break;
    case Precision::fp16: flag("fp16"); break;
    case Precision::nvfp4: flag("bf16"); value("fp4-format", "e2m1"); break;
    default: {
      flag("bf16");
      value("fp8-format", "hybrid");
      const char* recipe = t.precision == Precision::fp8_delayed   ? "delayed"
                           : t.precision == Precision::fp8_cs      ? "tensorwise"
                           : t.precision == Precision::fp8_blockwise ? "blockwise"
                                                                      : "mxfp8";
      value("fp8-recipe", recipe);
    }
  }
  if (t.recompute.granularity != RecomputeGranularity::none) {
    value("recompute-granularity", to_string(t.recompute.granularity));
    if (t.recompute.granularity == RecomputeGranularity::full) {
      value("recompute-method", t.recompute.method == RecomputeMethod::block ? "block" : "uniform");
      integer("recompute-num-layers", t.recompute.num_layers);
    } else if (!t.recompute.modules.empty()) {
      flag("recompute-modules");
      a.insert(a.end(), t.recompute.modules.begin(), t.recompute.modules.end());
    }
  }
  value("attention-backend", backend_name(t.attention_backend));
  if (t.distributed_optimizer) {
    flag("use-distributed-optimizer");
  }
  if (t.fsdp == Fsdp::megatron) {
    flag("use-megatron-fsdp");
    value("data-parallel-sharding-strategy", t.fsdp_sharding);
  } else if (t.fsdp == Fsdp::torch) {
    flag("use-torch-fsdp2");
  }
  if (t.cpu_offloading_layers > 0) {
    integer("cpu-offloading-num-layers", t.cpu_offloading_layers);
  }
  if (t.cuda_graphs != CudaGraphs::none) {
    value("cuda-graph-impl", to_string(t.cuda_graphs));
  }
  if (!t.cuda_graph_modules.empty()) {
    flag("cuda-graph-modules");
    a.insert(a.end(), t.cuda_graph_modules.begin(), t.cuda_graph_modules.end());
  }
  const std::pair<bool, const char*> switches[] = {
    {t.nccl_ub, "use-nccl-ub"},
    {t.fine_grained_activation_offloading, "fine-grained-activation-offloading"},
    {t.tp_comm_overlap, "tp-comm-overlap"},
    {t.overlap_grad_reduce, "overlap-grad-reduce"},
    {t.overlap_param_gather, "overlap-param-gather"},
    {t.overlap_moe_expert_parallel_comm, "overlap-moe-expert-parallel-comm"},
    {t.delay_wgrad_compute, "delay-wgrad-compute"},
    {t.fp8_param_gather, "fp8-param-gather"},
    {t.optimizer.precision_aware, "use-precision-aware-optimizer"},
  };
  for (const auto& [on, name] : switches) {
    if (on) {
      flag(name);
    }
  }
  value("optimizer", t.optimizer.name);
  if (t.optimizer.grad_dtype != "fp32") {
    flag("grad-reduce-in-bf16");
  }
  if (t.optimizer.state_dtype != "fp32") {
    value("exp-avg-dtype", t.optimizer.state_dtype);
  }
  if (t.optimizer.cpu_offload_fraction > 0) {
    flag("optimizer-cpu-offload");
    value("optimizer-offload-fraction", fmt::format("{}", t.optimizer.cpu_offload_fraction));
  }
    if (!p.pipeline_layout.empty()) {
    value("pipeline-model-parallel-layout", p.pipeline_layout);
  }
  if (p.microbatch_group_size_per_vp_stage > 0) {
    integer("microbatch-group-size-per-virtual-pipeline-stage", p.microbatch_group_size_per_vp_stage);
  }
  const std::pair<bool, const char*> split_and_wgrad[] = {
    {p.account_for_embedding_in_pipeline_split, "account-for-embedding-in-pipeline-split"},
    {p.account_for_loss_in_pipeline_split, "account-for-loss-in-pipeline-split"},
    {t.defer_embedding_wgrad_compute, "defer-embedding-wgrad-compute"},
  };
  for (const auto& [on, name] : split_and_wgrad) {
    if (on) {
      flag(name);
    }
  }
  if (t.wgrad_deferral_limit > 0) {
    integer("wgrad-deferral-limit", t.wgrad_deferral_limit);
  }
  if (!t.offload_modules.empty()) {
    flag("offload-modules");
    a.insert(a.end(), t.offload_modules.begin(), t.offload_modules.end());
  }
  if (t.unfused_softmax_in_fp32) {
    value("transformer-impl", "local");
    flag("no-masked-softmax-fusion");
    flag("attention-softmax-in-fp32");
  }
  if (t.cross_entropy_fusion != "none") {
    flag("cross-entropy-loss-fusion");
    value("cross-entropy-fusion-impl", t.cross_entropy_fusion);
  }
  if (t.optimizer.distributed_instances > 1) {
    integer("num-distributed-optimizer-instances", t.optimizer.distributed_instances);
  }
  for (const auto& part : t.frozen) {
    if (part == "language_model" || part == "vision_model") {
      flag(part == "language_model" ? "freeze-LM" : "freeze-ViT");
    } else {
      lossy.emplace_back(fmt::format("frozen {}: Megatron-LM has no command-line flag to freeze it", part));
    }
  }
  if (spec.peft.method != "none") {
    lossy.emplace_back(fmt::format("peft {} (rank {}): Megatron-LM's own scripts have no LoRA flags", spec.peft.method, spec.peft.rank));
  }
  return a;
}

} // namespace lg::config
