// The ConfigContainer fields Megatron resolves together (precision: fp8 +
// fp8_recipe, fp4, fp16 and the named mixed_precision recipes; activation_func
// + gated_linear_unit; cpu_offloading + cpu_offloading_num_layers; the CUDA
// graph switches; optimizer CPU offload + fraction; the PEFT method), applied
// after every setting is read so their order does not matter. Sources:
// Megatron-Bridge src/megatron/bridge/training/mixed_precision.py (recipes,
// MixedPrecisionConfig), peft/lora.py, dora.py; Megatron-LM
// megatron/core/transformer/transformer_config.py.
#include "config/bridge_mapping.hpp"
#include "config/not_modelled.hpp"

#include "util/edit_distance.hpp"

#include <algorithm>

namespace lg::config::bridge {

namespace {


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

} // namespace

void resolve_pending(JobSpec& spec, const Pending& p, const std::vector<BridgeSetting>& settings,
                     std::vector<BridgeOutcome>& out)
{
  auto fail = [&](const PendingSetting& at, std::string message, std::string hint = {}) {
    out[at->first].effect = BridgeEffect::error;
    out[at->first].message = fmt::format("{} {}", settings[at->first].key, message);
    out[at->first].hint = std::move(hint);
  };
  auto mark = [&](const PendingSetting& at, const std::string& job_key) {
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
PendingSetting* pending_slot(Pending& p, std::string_view key)
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
  static const std::map<std::string, PendingSetting Pending::*, std::less<>> slots = {
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

} // namespace lg::config::bridge
