// The not-modelled table (not_modelled.hpp). Megatron-LM flags from
// megatron/training/arguments.py; Megatron Bridge keys from the
// ConfigContainer dataclasses (megatron/bridge/training/config.py and
// Megatron-LM's TransformerConfig); DeepSpeed from Megatron-DeepSpeed.
#include "config/not_modelled.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace lg::config {

namespace {

struct NotModelledEntry
{
  std::string_view setting;
  bool prefix;  // a family of flags: "--mamba-" matches "--mamba-state-dim"
  std::string_view what;
};

constexpr std::string_view k_hybrid = "Mamba/hybrid layers (Nemotron-H style): SSM state and conv buffers";
constexpr std::string_view k_fp8_attention = "FP8 attention changes the attention activations kept";
constexpr std::string_view k_bf16_layers = "layers kept in BF16 under FP8";

constexpr std::array<NotModelledEntry, 39> k_not_modelled = {{
  // Launch settings (audit and the Megatron-LM reader).
  {"deepspeed", false, "DeepSpeed ZeRO: its partitioning of weights, gradients and optimizer state is not Megatron's"},
  // Megatron-LM (and Megatron-DeepSpeed) flags.
  {"--deepspeed", false, "DeepSpeed ZeRO: its partitioning of weights, gradients and optimizer state is not Megatron's"},
  {"--export-kd-teacher-load", false, "knowledge distillation: the teacher model's weights and activations"},
  {"--kd-teacher-load", false, "knowledge distillation: the teacher model's weights and activations"},
  {"--hybrid-override-pattern", false, k_hybrid},
  {"--hybrid-layer-pattern", false, k_hybrid},
  {"--hybrid-", true, k_hybrid},
  {"--is-hybrid-model", false, k_hybrid},
  {"--mamba-", true, k_hybrid},
  {"--use-torch-optimizer-for-cpu-offload", false, "torch optimizer for CPU offload: host/device split of its state"},
  {"--checkpoint-activations", false,
   "activation checkpointing of Megatron-DeepSpeed and old Megatron-LM (--checkpoint-num-layers): which activations are kept"},
  {"--moe-latent", true, "MoE latent projections: the experts' sizes in the latent space"},
  {"--spec", false, "a custom layer spec: its modules' shapes"},
  {"--encoder-num-layers", false, "an encoder-decoder or vision encoder: the encoder's layers"},
  {"--num-experts-per-", true, "experts per token as Megatron-DeepSpeed routes them"},
  // Megatron Bridge ConfigContainer keys.
  {"model.moe_expert_capacity_factor", false, "a capacity factor drops or pads tokens per expert; the estimator assumes dropless routing"},
  {"model.moe_pad_expert_input_to_capacity", false, "padding expert inputs to capacity; the estimator assumes dropless routing"},
  {"model.account_for_embedding_in_pipeline_split", false, "the embedding counted as a layer in the pipeline split moves layers between stages"},
  {"model.account_for_loss_in_pipeline_split", false, "the loss counted as a layer in the pipeline split moves layers between stages"},
  {"model.window_size", false, "sliding-window attention; the estimator models full attention"},
  {"model.cpu_offloading_weights", false, "weight offloading to the CPU"},
  {"model.activation_offload_fraction", false, "a fraction of fine-grained activation offloading"},
  {"model.offload_modules", false, "the modules fine-grained activation offloading applies to"},
  {"model.hybrid_override_pattern", false, k_hybrid},
  {"model.is_hybrid_model", false, k_hybrid},
  {"model.heterogeneous_layers_config_path", false, "layers of different shapes"},
  {"model.fp8_dot_product_attention", false, k_fp8_attention},
  {"model.fp8_multi_head_attention", false, k_fp8_attention},
  {"model.deallocate_pipeline_outputs", false, "pipeline outputs kept after they are sent"},
  {"model.first_last_layers_bf16", false, "the first and last layers kept in BF16 under FP8"},
  {"mixed_precision.first_last_layers_bf16", false, "the first and last layers kept in BF16 under FP8"},
  {"mixed_precision.num_layers_at_start_in_bf16", false, k_bf16_layers},
  {"mixed_precision.num_layers_at_end_in_bf16", false, k_bf16_layers},
  {"ddp.fsdp_double_buffer", false, "FSDP double buffering of gathered parameters"},
  {"peft.dora", false, "DoRA is estimated as LoRA of the same rank; its magnitude vectors and the extra activations of "
                       "the weight norm are not modelled"},
  // What the JobSpec's own fields say (not_modelled below).
  {"training.cuda_graphs", false, "full-iteration CUDA graphs: the graph's private memory pool holds the whole step's activations at once"},
  {"training.optimizer", false, "its state per parameter"},
  {"training.frozen", false, "the estimate has no such module"},
  {"model.moe.flex_backend", false, "flex token dispatcher's HybridEP/NCCL EP backend: its registered communication buffers"},
}};

const NotModelledEntry* find_not_modelled_entry(std::string_view setting)
{
  if (setting.starts_with("--")) {
    setting = setting.substr(0, setting.find('='));
  }
  for (const auto& e : k_not_modelled) {
    if (!e.prefix && e.setting == setting) {
      return &e;
    }
  }
  for (const auto& e : k_not_modelled) {
    if (e.prefix && setting.starts_with(e.setting) && setting.size() > e.setting.size()) {
      return &e;
    }
  }
  return nullptr;
}

void add_not_modelled(std::vector<NotModelled>& out, NotModelled item)
{
  const bool seen = std::any_of(out.begin(), out.end(), [&](const NotModelled& n) {
    return n.setting == item.setting && n.what == item.what;
  });
  if (!seen) {
    out.push_back(std::move(item));
  }
}

std::string with_detail(std::string_view what, std::string_view detail)
{
  return detail.empty() ? std::string(what) : fmt::format("{} ({})", what, detail);
}

} // namespace

std::optional<std::string_view> not_modelled_what(std::string_view setting)
{
  if (const auto* e = find_not_modelled_entry(setting)) {
    return e->what;
  }
  return std::nullopt;
}

void note_not_modelled(JobSpec& spec, std::string_view setting, std::string_view detail, std::optional<SourceLocation> where)
{
  const auto* e = find_not_modelled_entry(setting);
  if (e == nullptr) {
    return;
  }
  std::string name(setting.starts_with("--") ? setting.substr(0, setting.find('=')) : setting);
  add_not_modelled(spec.not_modelled, NotModelled{std::move(name), with_detail(e->what, detail), std::move(where)});
}

std::optional<std::string> not_modelled_program(std::string_view program)
{
  const auto slash = program.rfind('/');
  std::string base(program.substr(slash == std::string_view::npos ? 0 : slash + 1));
  std::transform(base.begin(), base.end(), base.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // Word by word (pretrain_t5.py: "pretrain", "t5", "py"), so gpt5 is no T5.
  std::size_t begin = 0;
  while (begin < base.size()) {
    std::size_t end = base.find_first_of("_-.", begin);
    end = end == std::string::npos ? base.size() : end;
    const std::string_view token = std::string_view(base).substr(begin, end - begin);
    for (std::string_view kind : {"mamba", "hybrid", "vlm", "vision", "llava", "t5", "bert", "multimodal"}) {
      if (token.starts_with(kind)) {
        return fmt::format("the {} model of {}", kind, base);
      }
    }
    begin = end + 1;
  }
  return std::nullopt;
}

std::vector<NotModelled> not_modelled(const JobSpec& spec)
{
  std::vector<NotModelled> out = spec.not_modelled;
  const auto& t = spec.training;
  auto from_field = [&](std::string_view setting, std::string what) {
    add_not_modelled(out, NotModelled{std::string(setting), std::move(what), spec.location_of(std::string(setting))});
  };
  if (t.cuda_graphs == CudaGraphs::full_iteration) {
    from_field("training.cuda_graphs", std::string(*not_modelled_what("training.cuda_graphs")));
  }
  const auto& o = t.optimizer.name;
  if (o != "adam" && o != "sgd" && o != "lion" && o != "muon" && o != "dist_muon") {
    from_field("training.optimizer", fmt::format("optimizer '{}': {}", o, *not_modelled_what("training.optimizer")));
  }
  for (const auto& part : t.frozen) {
    if (part != "language_model") {
      from_field("training.frozen", fmt::format("frozen '{}': {}", part, *not_modelled_what("training.frozen")));
    }
  }
  // DeepEP's buffers are modelled (estimate/overheads.cpp); the other
  // backends' are not.
  if (spec.model.moe && spec.model.moe->token_dispatcher == "flex" && !runs_deepep(*spec.model.moe)) {
    from_field("model.moe.flex_backend", fmt::format("{} ({})", *not_modelled_what("model.moe.flex_backend"),
                                                     flex_backend_of(*spec.model.moe)));
  }
  return out;
}

} // namespace lg::config
