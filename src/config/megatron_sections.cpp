// Megatron-LM flags into JobSpec fields, one reader per section: model, MoE
// and MLA, parallelism, precision, training, and the flags that change memory
// (megatron_flags.hpp).
#include "config/megatron_args.hpp"
#include "config/megatron_flags.hpp"
#include "config/not_modelled.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace lg::config::detail {

namespace {

void read_model(Reader& r, JobSpec& spec)
{
  auto& m = spec.model;
  assign(r.integer("num-layers", "model.num_layers", 1, 10000), m.num_layers);
  assign(r.integer("hidden-size", "model.hidden_size", 1, 1 << 20), m.hidden_size);
  assign(r.integer("num-attention-heads", "model.num_attention_heads", 1, 65536), m.num_attention_heads);
  assign(r.integer("kv-channels", "model.kv_channels", 1, 65536), m.kv_channels);
  if (r.set("group-query-attention")) {
    assign(r.integer("num-query-groups", "model.num_query_groups", 1, 65536), m.num_query_groups);
  }
  assign(r.integer("seq-length", "model.seq_length", 1, 1 << 24), m.seq_length);
  // Megatron-LM megatron/training/arguments.py (validate_args): without
  // --seq-length, --encoder-seq-length is the sequence length.
  if (!r.set("seq-length")) {
    assign(r.integer("encoder-seq-length", "model.seq_length", 1, 1 << 24), m.seq_length);
  }
  assign(r.integer("max-position-embeddings", "model.max_position_embeddings", 1, 1 << 24), m.max_position_embeddings);
  assign(r.integer("make-vocab-size-divisible-by", "model.make_vocab_size_divisible_by", 1, 1 << 20),
         m.make_vocab_size_divisible_by);
  // Megatron defaults (arguments.py, transformer_config.py): GELU, LayerNorm,
  // biases on, learned absolute positions, tied embeddings, dropout 0.1.
  m.activation = r.set("swiglu", "model.activation")         ? Activation::swiglu
                 : r.set("squared-relu", "model.activation") ? Activation::squared_relu
                                                             : Activation::gelu;
  m.normalization = Normalization::layer_norm;
  if (auto norm = r.word("normalization", "model.normalization")) {
    m.normalization = *norm == "RMSNorm" ? Normalization::rms_norm : Normalization::layer_norm;
  }
  m.add_bias_linear = !r.set("disable-bias-linear", "model.add_bias_linear");
  m.add_qkv_bias = m.add_bias_linear || r.set("add-qkv-bias", "model.add_qkv_bias");
  m.qk_layernorm = r.set("qk-layernorm", "model.qk_layernorm");
  m.untie_embeddings_and_output_weights =
    r.set("untie-embeddings-and-output-weights", "model.untie_embeddings_and_output_weights");
  m.position_embedding_type =
    r.word("position-embedding-type", "model.position_embedding_type").value_or("learned_absolute");
  m.hidden_dropout = r.number("hidden-dropout", "model.hidden_dropout").value_or(0.1);
  m.attention_dropout = r.number("attention-dropout", "model.attention_dropout").value_or(0.1);
  assign(r.integer("mtp-num-layers", "model.mtp_num_layers", 0, 64), m.mtp_num_layers);
  if (m.ffn_hidden_size == 0) {
    assign(r.integer("ffn-hidden-size", "model.ffn_hidden_size", 1, 1 << 22), m.ffn_hidden_size);
  }
  if (m.ffn_hidden_size == 0) {
    m.ffn_hidden_size = m.activation == Activation::swiglu ? static_cast<int>(4LL * m.hidden_size * 2 / 3 / 64 * 64)
                                                           : 4 * m.hidden_size;
  }
  if (auto vocab = r.integer("vocab-size", "model.vocab_size", 1, 100000000)) {
    m.vocab_size = *vocab;
  } else if (auto padded = r.integer("padded-vocab-size", "model.vocab_size", 1, 100000000)) {
    m.vocab_size = *padded;
  } else if (r.word("tokenizer-type").value_or("") == "GPT2BPETokenizer") {
    m.vocab_size = 50257;
  } else if (r.has("tokenizer-type")) {
    m.vocab_size = 131072;  // TikTokenizer / NullTokenizer default 2**17
  }
}

void read_moe_mla(Reader& r, JobSpec& spec)
{
  auto& m = spec.model;
  if (auto experts = r.integer("num-experts", "model.moe.num_experts", 1, 1 << 16)) {
    MoeSpec moe;
    moe.num_experts = static_cast<int>(*experts);
    moe.moe_ffn_hidden_size = static_cast<int>(
      r.integer("moe-ffn-hidden-size", "model.moe.moe_ffn_hidden_size", 1, 1 << 22).value_or(m.ffn_hidden_size));
    moe.router_topk = static_cast<int>(r.integer("moe-router-topk", "model.moe.router_topk", 1, 1024).value_or(2));
    moe.shared_expert_intermediate_size = static_cast<int>(
      r.integer("moe-shared-expert-intermediate-size", "model.moe.shared_expert_intermediate_size", 0, 1 << 22)
        .value_or(0));
    moe.token_dispatcher = r.word("moe-token-dispatcher-type", "model.moe.token_dispatcher").value_or("allgather");
    // --moe-enable-deepep (deprecated) is read as given: flex_backend_of()
    // resolves it, the rules judge it (transformer_config.py __post_init__).
    moe.flex_backend = r.word("moe-flex-dispatcher-backend", "model.moe.flex_backend").value_or("deepep");
    moe.enable_deepep = r.set("moe-enable-deepep", "model.moe.enable_deepep");
    // --moe-flex-dispatcher-num-sms, else the deprecated per-backend knobs it
    // replaced (TransformerConfig.__post_init__ routes them into it).
    auto sms = r.integer("moe-flex-dispatcher-num-sms", "model.moe.deepep_num_sms", 2, 1024);
    if (!sms) {
      sms = r.integer("moe-deepep-num-sms", "model.moe.deepep_num_sms", 2, 1024);
    }
    if (!sms) {
      sms = r.integer("moe-hybridep-num-sms", "model.moe.deepep_num_sms", 2, 1024);
    }
    moe.deepep_num_sms = static_cast<int>(sms.value_or(0));
    moe.router_bias = r.set("moe-router-enable-expert-bias");
    moe.grouped_gemm = r.set("moe-grouped-gemm");
    if (auto freq = r.word("moe-layer-freq", "model.moe.layer_freq")) {
      moe.layer_pattern = parse_moe_layer_freq(*freq, m.num_layers);
      // Megatron asserts len(moe_layer_pattern) == config.num_layers
      // (megatron/core/models/gpt/gpt_layer_specs.py:653); a list of another
      // length would otherwise give a wrong estimate.
      if (!moe.layer_pattern.empty() && moe.layer_pattern.size() != static_cast<std::size_t>(m.num_layers)) {
        InputError error("command line:1:{}: --moe-layer-freq '{}' gives {} layers but --num-layers is {}",
                         spec.locations["model.moe.layer_freq"].column, *freq, moe.layer_pattern.size(), m.num_layers);
        error.hint = fmt::format("give one 0/1 per layer, e.g. \"([0]*1+[1]*{})\"", std::max(0, m.num_layers - 1));
        throw error;
      }
    }
    m.moe = moe;
  }
  if (r.set("multi-latent-attention", "model.mla")) {
    MlaSpec mla;
    assign(r.integer("q-lora-rank", "model.mla.q_lora_rank", 0, 1 << 20), mla.q_lora_rank);
    assign(r.integer("kv-lora-rank", "model.mla.kv_lora_rank", 1, 1 << 20), mla.kv_lora_rank);
    assign(r.integer("qk-head-dim", "model.mla.qk_head_dim", 1, 1 << 16), mla.qk_head_dim);
    assign(r.integer("qk-pos-emb-head-dim", "model.mla.qk_pos_emb_head_dim", 0, 1 << 16), mla.qk_pos_emb_head_dim);
    assign(r.integer("v-head-dim", "model.mla.v_head_dim", 1, 1 << 16), mla.v_head_dim);
    m.mla = mla;
  }
}

void read_parallelism(Reader& r, JobSpec& spec)
{
  auto& p = spec.parallelism;
  assign(r.integer("tensor-model-parallel-size", "parallelism.tp", 1, 1024), p.tp);
  assign(r.integer("pipeline-model-parallel-size", "parallelism.pp", 1, 1024), p.pp);
  assign(r.integer("context-parallel-size", "parallelism.cp", 1, 1024), p.cp);
  assign(r.integer("expert-model-parallel-size", "parallelism.ep", 1, 4096), p.ep);
  if (auto etp = r.integer("expert-tensor-parallel-size", "parallelism.etp", 1, 1024)) {
    p.etp = static_cast<int>(*etp);
  }
  // Megatron silently disables SP when TP = 1; keep what the user asked so
  // the rule can say so.
  p.sequence_parallel = r.set("sequence-parallel", "parallelism.sequence_parallel");
  p.account_for_embedding_in_pipeline_split =
    r.set("account-for-embedding-in-pipeline-split", "parallelism.account_for_embedding_in_pipeline_split");
  p.account_for_loss_in_pipeline_split =
    r.set("account-for-loss-in-pipeline-split", "parallelism.account_for_loss_in_pipeline_split");
  if (auto v = r.integer("num-virtual-stages-per-pipeline-rank", "parallelism.vpp", 1, 1024)) {
    p.vpp = static_cast<int>(*v);
  } else if (auto per_stage = r.integer("num-layers-per-virtual-pipeline-stage", "parallelism.vpp", 1, 10000)) {
    // The embedding and the loss each count as a layer of the split when
    // asked (Megatron-LM megatron/training/arguments.py, validate_args:
    // num_layers += 1 for each, then // pipeline size // layers per virtual
    // stage).
    const long long split_layers = spec.model.num_layers + (p.account_for_embedding_in_pipeline_split ? 1 : 0)
                                   + (p.account_for_loss_in_pipeline_split ? 1 : 0);
    const long long layers_per_rank = split_layers / p.pp;
    if (spec.model.num_layers > 0 && *per_stage > layers_per_rank) {
      InputError error("--num-layers-per-virtual-pipeline-stage {} is more than the {} layers per pipeline stage",
                       *per_stage, layers_per_rank);
      throw error;
    }
    p.vpp = static_cast<int>(layers_per_rank / *per_stage);
  }
  if (auto first = r.integer("decoder-first-pipeline-num-layers", "parallelism.first_stage_layers", 0, 10000)) {
    p.first_stage_layers = static_cast<int>(*first);
  }
  if (auto last = r.integer("decoder-last-pipeline-num-layers", "parallelism.last_stage_layers", 0, 10000)) {
    p.last_stage_layers = static_cast<int>(*last);
  }
}

Precision read_precision(Reader& r)
{
  if (r.set("fp4-format", "training.precision")) {
    return Precision::nvfp4;
  }
  if (r.set("fp8-format", "training.precision")) {
    const std::string recipe = r.word("fp8-recipe", "training.precision").value_or("delayed");
    if (recipe == "tensorwise") {
      return Precision::fp8_cs;
    }
    if (recipe == "blockwise") {
      return Precision::fp8_blockwise;
    }
    if (recipe == "mxfp8") {
      return Precision::mxfp8;
    }
    return Precision::fp8_delayed;
  }
  return r.set("fp16", "training.precision") ? Precision::fp16 : Precision::bf16;
}

void read_training(Reader& r, JobSpec& spec)
{
  auto& t = spec.training;
  assign(r.integer("micro-batch-size", "training.micro_batch_size", 1, 1 << 20), t.micro_batch_size);
  assign(r.integer("global-batch-size", "training.global_batch_size", 1, 1 << 30), t.global_batch_size);
  t.precision = read_precision(r);
  if (auto g = r.word("recompute-granularity", "training.recompute.granularity")) {
    t.recompute.granularity = *g == "full" ? RecomputeGranularity::full : RecomputeGranularity::selective;
  } else if (r.set("recompute-activations", "training.recompute.granularity")) {
    t.recompute.granularity = RecomputeGranularity::selective;
  }
  if (auto method = r.word("recompute-method", "training.recompute.method")) {
    t.recompute.method = *method == "block" ? RecomputeMethod::block : RecomputeMethod::uniform;
  }
  assign(r.integer("recompute-num-layers", "training.recompute.num_layers", 0, 10000), t.recompute.num_layers);
  if (auto modules = r.words("recompute-modules", "training.recompute.modules")) {
    t.recompute.modules = *modules;
  }
  if (auto backend = r.word("attention-backend", "training.attention_backend")) {
    t.attention_backend = *backend == "unfused" ? AttentionBackend::unfused
                          : *backend == "flash" ? AttentionBackend::flash
                                                : AttentionBackend::fused;
  }
  t.distributed_optimizer = r.set("use-distributed-optimizer", "training.distributed_optimizer");
  if (r.set("use-megatron-fsdp", "training.fsdp")) {
    t.fsdp = Fsdp::megatron;
    t.fsdp_sharding =
      r.word("data-parallel-sharding-strategy", "training.fsdp_sharding").value_or("optim_grads_params");
  } else if (r.set("use-torch-fsdp2", "training.fsdp")) {
    t.fsdp = Fsdp::torch;
  }
  assign(r.integer("cpu-offloading-num-layers", "training.cpu_offloading_layers", 0, 10000), t.cpu_offloading_layers);
  if (auto impl = r.word("cuda-graph-impl", "training.cuda_graphs")) {
    t.cuda_graphs = *impl == "local"                ? CudaGraphs::local
                    : *impl == "transformer_engine" ? CudaGraphs::transformer_engine
                    : *impl == "full_iteration"     ? CudaGraphs::full_iteration
                                                    : CudaGraphs::none;
  } else if (r.set("enable-cuda-graph", "training.cuda_graphs")) {
    t.cuda_graphs = CudaGraphs::local;
  } else if (r.set("external-cuda-graph", "training.cuda_graphs")) {
    t.cuda_graphs = CudaGraphs::transformer_engine;
  }
  if (auto modules = r.words("cuda-graph-modules", "training.cuda_graph_modules")) {
    t.cuda_graph_modules = *modules;
  }
  t.nccl_ub = r.set("use-nccl-ub", "training.nccl_ub");
  t.fine_grained_activation_offloading =
    r.set("fine-grained-activation-offloading", "training.fine_grained_activation_offloading");
  t.tp_comm_overlap = r.set("tp-comm-overlap", "training.tp_comm_overlap");
  t.overlap_grad_reduce = r.set("overlap-grad-reduce", "training.overlap_grad_reduce");
  t.overlap_param_gather = r.set("overlap-param-gather", "training.overlap_param_gather");
  t.overlap_moe_expert_parallel_comm =
    r.set("overlap-moe-expert-parallel-comm", "training.overlap_moe_expert_parallel_comm");
  t.delay_wgrad_compute = r.set("delay-wgrad-compute", "training.delay_wgrad_compute");
  t.fp8_param_gather = r.set("fp8-param-gather", "training.fp8_param_gather");
  auto& o = t.optimizer;
  o.name = r.word("optimizer", "training.optimizer.name").value_or("adam");
  o.precision_aware = r.set("use-precision-aware-optimizer", "training.optimizer.precision_aware");
  o.grad_dtype = r.word("main-grads-dtype", "training.optimizer.grad_dtype").value_or("fp32");
  // --grad-reduce-in-bf16 keeps the gradient buffers (and their reduction)
  // in bf16: half the gradient memory.
  if (r.set("grad-reduce-in-bf16", "training.optimizer.grad_dtype")) {
    o.grad_dtype = "bf16";
  }
  o.state_dtype = r.word("exp-avg-dtype", "training.optimizer.state_dtype").value_or("fp32");
  if (r.set("optimizer-cpu-offload", "training.optimizer.cpu_offload_fraction")) {
    o.cpu_offload_fraction = r.number("optimizer-offload-fraction").value_or(1.0);
  }
}

// "[a b c]" or "a b c" (Megatron list flags arrive either way).
std::vector<std::string> list_words(const std::vector<std::string>& values)
{
  std::vector<std::string> out;
  for (const auto& value : values) {
    std::string word;
    for (const char c : value + " ") {
      if (c == '[' || c == ']' || c == ',' || c == ' ' || c == '\'' || c == '"') {
        if (!word.empty()) {
          out.push_back(word);
        }
        word.clear();
      } else {
        word += c;
      }
    }
  }
  return out;
}

// Flags that change memory: the ones the estimator models, and the ones it
// does not (recorded in spec.not_modelled so the verdict says `unknown`).
void read_memory_features(Reader& r, JobSpec& spec)
{
  auto& p = spec.parallelism;
  auto& t = spec.training;
  if (auto layout = r.word("pipeline-model-parallel-layout", "parallelism.pipeline_layout")) {
    (void)parse_pipeline_layout(*layout);  // throws InputError on a malformed layout
    p.pipeline_layout = *layout;
  }
  assign(r.integer("microbatch-group-size-per-virtual-pipeline-stage", "parallelism.microbatch_group_size_per_vp_stage",
                   1, 1 << 20),
         p.microbatch_group_size_per_vp_stage);
  if (auto modules = r.words("offload-modules", "training.offload_modules")) {
    t.offload_modules = list_words(*modules);
  }
  if (r.set("cross-entropy-loss-fusion", "training.cross_entropy_fusion")) {
    t.cross_entropy_fusion = r.word("cross-entropy-fusion-impl").value_or("native") == "te" ? "te" : "native";
  }
  // --transformer-impl local builds Megatron's DotProductAttention (unfused,
  // core/transformer/dot_product_attention.py); without the masked-softmax
  // kernel its FusedScaleMaskSoftmax.forward_torch_softmax runs in fp32 when
  // asked to (core/fusions/fused_softmax.py; apply_query_key_layer_scaling
  // forces attention_softmax_in_fp32 in transformer_config.py).
  if (r.word("transformer-impl", "training.attention_backend").value_or("") == "local") {
    t.attention_backend = AttentionBackend::unfused;
    const bool fp32 = r.set("attention-softmax-in-fp32") || r.set("apply-query-key-layer-scaling");
    t.unfused_softmax_in_fp32 = fp32 && r.set("no-masked-softmax-fusion", "training.unfused_softmax_in_fp32");
  }
  t.defer_embedding_wgrad_compute = r.set("defer-embedding-wgrad-compute", "training.defer_embedding_wgrad_compute");
  assign(r.integer("wgrad-deferral-limit", "training.wgrad_deferral_limit", 0, 1 << 20), t.wgrad_deferral_limit);
  assign(r.integer("num-distributed-optimizer-instances", "training.optimizer.distributed_instances", 1, 1024),
         t.optimizer.distributed_instances);
  for (const auto& [flag, part] : {std::pair{"freeze-LM", "language_model"}, std::pair{"freeze-ViT", "vision_model"}}) {
    if (r.set(flag, "training.frozen")) {
      t.frozen.emplace_back(part);
    }
  }
  // Settings the estimator does not model (config/not_modelled.cpp has the words).
  auto at = [](const Flag& flag) { return SourceLocation{"command line", 1, flag.position}; };
  for (const auto& [name, flag] : r.flags()) {
    if (name == "deepspeed" || name == "zero-stage" || name == "deepspeed_config" || name == "deepspeed-config") {
      const auto stage = r.has("zero-stage") ? r.word("zero-stage").value_or("?") : std::string("?");
      note_not_modelled(spec, "--deepspeed", fmt::format("stage {}", stage), at(flag));
    } else if (name == "use-torch-optimizer-for-cpu-offload") {
      if (r.has("optimizer-cpu-offload")) {
        note_not_modelled(spec, "--" + name, {}, at(flag));
      }
    } else {
      note_not_modelled(spec, "--" + name, {}, at(flag));
    }
  }
}

}  // namespace

// Read every flag of `flags` into `spec`, as job_from_megatron_args does.
void read_megatron_flags(const FlagMap& flags, JobSpec& spec)
{
  Reader reader(flags, spec);
  read_model(reader, spec);
  read_parallelism(reader, spec);
  read_moe_mla(reader, spec);
  read_training(reader, spec);
  read_memory_features(reader, spec);
}

}  // namespace lg::config::detail
