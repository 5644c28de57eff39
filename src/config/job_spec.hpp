// The typed job: what the user asked for, after presets and defaults are
// applied. Every stage (estimate, rules, env, render, launch, audit) reads this
// struct and nothing else of the job file. Key names follow Megatron's own
// names where one exists (docs/job-file.md).
#pragma once

#include "util/diagnostic.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lg::config {

enum class Activation { swiglu, gelu, squared_relu, geglu };
// A gated MLP (SwiGLU, GeGLU): fc1 is twice the FFN width (gate and value).
constexpr bool gated(Activation a) { return a == Activation::swiglu || a == Activation::geglu; }
enum class Normalization { rms_norm, layer_norm };
enum class Precision { bf16, fp16, fp8_delayed, fp8_cs, fp8_blockwise, mxfp8, nvfp4 };
enum class RecomputeGranularity { none, selective, full };
enum class RecomputeMethod { uniform, block };
enum class AttentionBackend { fused, flash, unfused };
enum class Fsdp { none, megatron, torch };
enum class CudaGraphs { none, local, transformer_engine, full_iteration };
enum class GpuGeneration { ampere, hopper, blackwell };
enum class Framework { megatron_bridge, megatron_lm, nemo };

// Mixture-of-experts block. Absent (std::nullopt in ModelSpec) for dense.
struct MoeSpec
{
  int num_experts = 0;
  int moe_ffn_hidden_size = 0;
  int router_topk = 2;
  int shared_expert_intermediate_size = 0;  // 0 = no shared expert
  // Per layer 1 = MoE, 0 = dense. Empty means every layer is MoE. An integer
  // `layer_freq = f` in the job file expands to i % f == 0.
  std::vector<int> layer_pattern;
  std::string token_dispatcher = "alltoall";  // alltoall | allgather | flex
  // The flex dispatcher's backend (Megatron-LM TransformerConfig
  // moe_flex_dispatcher_backend, default "deepep"): deepep | hybridep | ncclep.
  std::string flex_backend = "deepep";
  // The deprecated moe_enable_deepep (--moe-enable-deepep), as given: it
  // needs the flex dispatcher and makes the backend DeepEP unless HybridEP
  // is named (an error); read the backend through flex_backend_of().
  bool enable_deepep = false;
  // DeepEP's SMs for its high-throughput kernels (moe_flex_dispatcher_num_sms,
  // formerly moe_deepep_num_sms / moe_hybridep_num_sms; 0 = DeepEP's own
  // default, Buffer.num_sms = 20). It sizes DeepEP's buffers.
  int deepep_num_sms = 0;
  bool router_bias = false;                   // expert bias (aux-loss-free)
  bool shared_expert_gate = false;
  // Experts as Transformer Engine grouped GEMMs (--moe-grouped-gemm; Bridge's
  // MoE providers set moe_grouped_gemm = True, Megatron-LM's flag is off by
  // default).
  bool grouped_gemm = true;
};

// Multi-latent attention (DeepSeek-V2/V3). q_lora_rank 0 means no q
// compression.
struct MlaSpec
{
  int q_lora_rank = 0;
  int kv_lora_rank = 512;
  int qk_head_dim = 128;
  int qk_pos_emb_head_dim = 64;
  int v_head_dim = 128;
};

struct ModelSpec
{
  std::string preset;
  std::string hf_config;  // the Hugging Face config.json the model was read from, if any
  int num_layers = 0;
  int hidden_size = 0;
  int ffn_hidden_size = 0;
  int num_attention_heads = 0;
  int num_query_groups = 0;  // 0 = same as num_attention_heads (MHA)
  int kv_channels = 0;       // 0 = hidden_size / num_attention_heads
  std::int64_t vocab_size = 0;
  int make_vocab_size_divisible_by = 128;
  int seq_length = 4096;
  int max_position_embeddings = 0;  // 0 = seq_length
  Activation activation = Activation::swiglu;
  Normalization normalization = Normalization::rms_norm;
  bool add_bias_linear = false;
  bool add_qkv_bias = false;
  bool qk_layernorm = false;
  bool untie_embeddings_and_output_weights = true;
  std::string position_embedding_type = "rope";  // rope | learned_absolute | none
  // Megatron's and Bridge's generic GPT defaults (transformer_config.py
  // hidden_dropout / attention_dropout = 0.1); Llama-style presets set 0.0.
  double hidden_dropout = 0.1;
  double attention_dropout = 0.1;
  int mtp_num_layers = 0;
  std::optional<MoeSpec> moe;
  std::optional<MlaSpec> mla;
  // Published total parameter count of the preset, for the benchmark and
  // tests (0 when unknown). Not used by the estimator.
  std::int64_t published_parameters = 0;
};

struct ParallelismSpec
{
  int tp = 1;
  int pp = 1;
  std::optional<int> vpp;  // virtual stages per pipeline rank; absent = none
  int cp = 1;
  int ep = 1;
  std::optional<int> etp;  // default: tp
  bool sequence_parallel = false;
  std::optional<int> first_stage_layers;  // uneven PP
  std::optional<int> last_stage_layers;
  // Megatron's --pipeline-model-parallel-layout ("Et*3|(tt|)*6L"): one
  // virtual stage per '|'-separated group; empty = none. See
  // config::parse_pipeline_layout.
  std::string pipeline_layout;
  // --account-for-embedding/loss-in-pipeline-split: the embedding / loss
  // count as one layer when the layers are split over the stages.
  bool account_for_embedding_in_pipeline_split = false;
  bool account_for_loss_in_pipeline_split = false;
  // --microbatch-group-size-per-virtual-pipeline-stage; 0 = pp (Megatron's default).
  int microbatch_group_size_per_vp_stage = 0;
};

struct RecomputeSpec
{
  RecomputeGranularity granularity = RecomputeGranularity::none;
  // selective: "core_attn", "mlp", "moe", "moe_act", "layernorm", "mla_up_proj",
  // "shared_experts". Default ["core_attn"] when selective and empty.
  std::vector<std::string> modules;
  RecomputeMethod method = RecomputeMethod::uniform;  // full only
  int num_layers = 1;                                 // full only
};

struct OptimizerSpec
{
  // adam | sgd | lion | muon | dist_muon (Megatron's emerging optimizers)
  std::string name = "adam";
  bool precision_aware = false;
  std::string grad_dtype = "fp32";   // main_grads_dtype: fp32 | bf16
  std::string state_dtype = "fp32";  // exp_avg(_sq) dtype: fp32 | bf16 | fp16 | fp8
  double cpu_offload_fraction = 0.0;
  // --num-distributed-optimizer-instances: the optimizer state is sharded over
  // DP x CP / instances (each instance holds a full copy).
  int distributed_instances = 1;
  // TE FusedAdam store_param_remainders: with the precision-aware optimizer
  // managing bf16 weights, the fp32 master copy is kept as the 16-bit
  // remainder (2 bytes instead of 4). Megatron's OptimizerConfig defaults it
  // to True, but measured precision-aware runs match a full fp32 master, so
  // it applies only when the job sets it (docs/estimator.md).
  bool store_param_remainders = false;
};

struct TrainingSpec
{
  int micro_batch_size = 1;
  int global_batch_size = 1;
  Precision precision = Precision::bf16;
  RecomputeSpec recompute;
  AttentionBackend attention_backend = AttentionBackend::fused;
  bool distributed_optimizer = true;
  OptimizerSpec optimizer;
  Fsdp fsdp = Fsdp::none;
  // none | optim | optim_grads | optim_grads_params (Megatron FSDP)
  std::string fsdp_sharding = "optim_grads_params";
  int cpu_offloading_layers = 0;  // activation offloading (needs pp = 1)
  // Fine-grained activation offloading (--fine-grained-activation-offloading);
  // with TE >= 2.10 it needs NVTE_CPU_OFFLOAD_V1=1 (env composer).
  bool fine_grained_activation_offloading = false;
  CudaGraphs cuda_graphs = CudaGraphs::none;
  std::vector<std::string> cuda_graph_modules;  // attn, mlp, moe, moe_router, …
  bool nccl_ub = false;
  bool tp_comm_overlap = false;
  bool overlap_grad_reduce = false;
  bool overlap_param_gather = false;
  bool overlap_moe_expert_parallel_comm = false;
  bool delay_wgrad_compute = false;
  bool fp8_param_gather = false;
  // Activations offloaded by fine-grained offloading (--offload-modules):
  // attn_norm, qkv_linear, core_attn, attn_proj, mlp_norm, expert_fc1, moe_act.
  std::vector<std::string> offload_modules;
  // Cross-entropy: "none" (unfused: bf16 logits plus an fp32 copy), "native"
  // (Megatron's fused kernel) or "te" (Transformer Engine's parallel CE).
  std::string cross_entropy_fusion = "none";
  // Megatron's own (local) attention with its softmax in PyTorch in fp32:
  // --transformer-impl local, --no-masked-softmax-fusion and
  // --attention-softmax-in-fp32 (or --apply-query-key-layer-scaling, which
  // forces it). The fp32 probabilities are kept for the softmax's backward.
  bool unfused_softmax_in_fp32 = false;
  // --defer-embedding-wgrad-compute with --wgrad-deferral-limit: the output
  // layer's weight gradient is deferred, keeping its inputs per microbatch.
  bool defer_embedding_wgrad_compute = false;
  int wgrad_deferral_limit = 0;
  // --disable-parameter-transpose-cache: TE does not keep fp8 transposes of
  // the weights across microbatches.
  bool disable_parameter_transpose_cache = false;
  // Frozen parameters (--freeze-* , vision towers): "embedding", "output",
  // "language_model", "vision_model" have no gradients or optimizer state.
  std::vector<std::string> frozen;
};

struct PeftSpec
{
  std::string method = "none";  // none | lora
  int rank = 16;
  double alpha = 32;
  std::vector<std::string> targets = {"linear_qkv", "linear_proj", "linear_fc1",
                                      "linear_fc2"};
  bool sequence_parallel_input_regather = false;
};

// A GPU model from presets/gpus/<name>.toml.
struct GpuSpec
{
  std::string name = "h100-80gb";
  std::string display_name = "H100 80GB";
  std::int64_t capacity_bytes = 0;  // what torch.cuda.mem_get_info() reports as total
  GpuGeneration generation = GpuGeneration::hopper;
  int nvlink_domain = 8;  // GPUs per NVLink domain (72 on GB200 NVL72)
};

struct ClusterSpec
{
  std::string gpu = "h100-80gb";
  GpuSpec gpu_info;  // resolved from the preset
  int nodes = 1;
  int gpus_per_node = 8;
};

struct SlurmSpec
{
  std::string partition;
  std::string account;
  std::string qos;
  std::string time = "01:00:00";
  std::string mem;  // --mem, empty = not set
  std::vector<std::string> extra_args;
  std::string signal = "TERM@60";
};

struct LaunchSpec
{
  std::string template_name = "srun-native";
  Framework framework = Framework::megatron_bridge;
  std::vector<std::string> command;
  std::string container_image;
  std::vector<std::string> container_mounts;
  std::string workdir = ".";
  std::string output = "logs/%x-%j.out";
};

struct RetrySpec
{
  int max_attempts = 3;
  std::vector<std::string> fixes = {"expandable_segments", "lora_input_regather",
                                    "recompute_core_attn", "increase_pp",
                                    "recompute_mlp", "distributed_optimizer"};
};

// One setting that changes memory in a way the estimator does not model.
struct NotModelled
{
  std::string setting;  // as its input names it: "--hybrid-override-pattern", "model.window_size", "deepspeed"
  std::string what;     // what the estimate leaves out, in words
  std::optional<SourceLocation> where;

  std::string text() const { return setting + ": " + what; }
};

struct JobSpec
{
  std::string name = "job";
  ModelSpec model;
  ParallelismSpec parallelism;
  TrainingSpec training;
  PeftSpec peft;
  ClusterSpec cluster;
  SlurmSpec slurm;
  LaunchSpec launch;
  // User environment in file order; values win over the composer's.
  std::vector<std::pair<std::string, std::string>> env;
  RetrySpec retry;

  // Settings this job uses that change memory but that launchguard's
  // estimator does not model, as the readers noted them
  // (config::note_not_modelled, config/not_modelled.hpp, which also adds what
  // the fields themselves say). A non-empty list makes the memory verdict `unknown`.
  std::vector<NotModelled> not_modelled;

  // Where each key came from: "parallelism.tp" -> job.toml:12:6. Keys from a
  // preset point into the preset file. Used by rules to place findings.
  std::string source_file;
  int source_line = 0;  // a job read from one line (a JSON line): its number
  std::map<std::string, SourceLocation> locations;
  // Warnings found while reading the inputs (a Hugging Face field read but not
  // usable, a Bridge setting that changes memory but is not modelled). Preflight
  // reports them with the rules' findings.
  std::vector<Diagnostic> input_findings;

  // Return the location of `key`, or of the section it belongs to, or of the
  // job file (its line, for a JSON line) itself.
  std::optional<SourceLocation> location_of(const std::string& key) const;
};

// --- Derived quantities (config/derived.cpp) ---

int world_size(const JobSpec& spec);          // nodes * gpus_per_node
int data_parallel_size(const JobSpec& spec);  // world / (tp * pp * cp), 0 if not integral
int expert_tensor_parallel_size(const JobSpec& spec);  // etp or tp
// Expert data parallel size: world / (etp * ep * pp), 0 if not integral.
int expert_data_parallel_size(const JobSpec& spec);
int num_microbatches(const JobSpec& spec);   // gbs / (mbs * dp), 0 if not integral
std::int64_t padded_vocab_size(const JobSpec& spec);
int num_query_groups(const ModelSpec& model);  // resolves 0 -> heads
int kv_channels(const ModelSpec& model);       // resolves 0 -> h / a
bool is_moe_layer(const ModelSpec& model, int layer);  // layer is 0-based
MoeSpec& ensure_moe(ModelSpec& model);  // the MoE block, created (defaults) when absent
MlaSpec& ensure_mla(ModelSpec& model);  // the MLA block, created (defaults) when absent
inline MoeSpec& ensure_moe(JobSpec& spec) { return ensure_moe(spec.model); }
inline MlaSpec& ensure_mla(JobSpec& spec) { return ensure_mla(spec.model); }
// The modules selective recompute applies to: the listed ones, or Megatron's
// default ["core_attn"] when none are listed; empty unless selective.
std::vector<std::string> recompute_modules(const RecomputeSpec& recompute);
// True if selective recompute covers `module` (see recompute_modules).
bool recomputes_module(const RecomputeSpec& recompute, std::string_view module);
// DeepEP's GPUs as Megatron Bridge checks them (training/flex_dispatcher_backend.py,
// validate_flex_dispatcher_backend): compute capability 8.x or 9.x, or a device
// named B200 or B300 (not GB200/GB300, whose flex backend is HybridEP).
bool deepep_supported(const GpuSpec& gpu);
// The flex dispatcher's backend as Megatron-LM resolves it
// (TransformerConfig.__post_init__): DeepEP when moe_enable_deepep is set
// and the backend is not HybridEP, else the backend given.
std::string flex_backend_of(const MoeSpec& moe);
// The flex token dispatcher on DeepEP (the one flex backend the estimate models).
bool runs_deepep(const MoeSpec& moe);
bool is_fp8(Precision precision);   // any fp8 recipe
bool is_fp4(Precision precision);

// One virtual pipeline stage of a --pipeline-model-parallel-layout.
struct LayoutStage
{
  int decoder_layers = 0;  // 't'
  int mtp_layers = 0;      // 'm'
  bool embedding = false;  // 'E'
  bool loss = false;       // 'L'
};
// Parse a Megatron pipeline layout ("Et*3|(tt|)*6L"): stages separated by
// '|', `x*n` repeats a symbol, `(…)*n` a group. Throws InputError on other
// characters or unbalanced groups. Stage i belongs to pipeline rank i % pp,
// virtual chunk i / pp (Megatron's PipelineParallelLayerLayout).
std::vector<LayoutStage> parse_pipeline_layout(const std::string& layout);

const char* to_string(Precision precision);
const char* to_string(GpuGeneration generation);
const char* to_string(RecomputeGranularity granularity);
const char* to_string(Fsdp fsdp);
const char* to_string(CudaGraphs graphs);
const char* to_string(Framework framework);

} // namespace lg::config
