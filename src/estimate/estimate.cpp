// The estimate itself: per pipeline rank, persistent model state plus the
// activations alive at that rank's peak plus the largest transient (logits or
// one layer's backward working set); device overheads on top; the verdict
// against the GPU's capacity; the what-if table.
#include "estimate/estimate.hpp"

#include "estimate/activations.hpp"
#include "estimate/error_band.hpp"
#include "estimate/overheads.hpp"
#include "estimate/parameters.hpp"
#include "estimate/pipeline.hpp"
#include "estimate/placement.hpp"

#include "config/not_modelled.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>

namespace lg::estimate {
namespace {

// Headroom rule: fits up to 90% of capacity, borderline up to 100%.
constexpr double k_fits_fraction = 0.90;
// No GPU holds an exabyte: larger (or non-finite) values from extreme
// inputs saturate here, so no output is negative or NaN.
constexpr double k_max_bytes = 1e18;

double saturate(double bytes)
{
  if (!std::isfinite(bytes)) {
    return bytes > 0 ? k_max_bytes : 0.0;
  }
  return std::clamp(bytes, 0.0, k_max_bytes);
}

void add(StageEstimate& stage, std::string_view name, double bytes)
{
  bytes = saturate(bytes);
  if (bytes > 0) {
    stage.components.emplace_back(name, bytes);
  }
}

// What every stage of one estimate shares, computed once per estimate.
struct StageTerms
{
  explicit StageTerms(const config::JobSpec& spec)
      : layers(spec),
        state(state_rates(spec)),
        gemm_workspaces(gemm_workspace_bytes(spec)),
        dispatcher_buffers(dispatcher_buffer_bytes(spec)),
        deepep_buffers(deepep_buffer_bytes(spec)),
        deferred_wgrad(deferred_wgrad_bytes(spec, microbatches_per_step(spec))),
        logits(logits_bytes(spec))
  {
  }
  LayerTerms layers;
  StateRates state;
  double gemm_workspaces;
  double dispatcher_buffers;  // on a stage with an MoE layer
  double deepep_buffers;      // on a stage with an MoE layer, outside the allocator
  double deferred_wgrad;      // on the stage with the output layer
  double logits;              // per depth (the output and each MTP module)
};

StageEstimate estimate_stage(const config::JobSpec& spec, const StageLayout& layout, StageTerms& terms,
                             bool expandable, double& params_on_gpu)
{
  StageEstimate stage;
  stage.components.reserve(20);  // one allocation, not one per doubling
  stage.pp_rank = layout.pp_rank;
  stage.layers = static_cast<int>(layout.layers.size());
  stage.in_flight_microbatches = layout.in_flight_chunks;
  const StageParameters params = stage_parameters(spec, layout, terms.layers.kinds());
  params_on_gpu = params.dense + params.experts + params.lora;
  const ModelStateBytes state = model_state_bytes(terms.state, params);
  add(stage, "weights", state.weights);
  add(stage, "gradients", state.gradients);
  add(stage, "optimizer_state", state.optimizer_state);
  add(stage, "fp8_weight_cache", state.fp8_weight_cache);
  add(stage, "fsdp_gather_buffers", state.fsdp_gather_buffers);
  const StageActivations acts = stage_activation_bytes(terms.layers, layout);
  add(stage, "activations", acts.layers);
  add(stage, "lora_retained_inputs", acts.lora);
  add(stage, "embedding_activations", acts.embedding);
  add(stage, "output_activations", acts.output);
  if (layout.has_output) {
    add(stage, "deferred_embedding_wgrad", terms.deferred_wgrad);
  }
  add(stage, "gemm_workspaces", terms.gemm_workspaces);
  const LayerKinds& kinds = terms.layers.kinds();
  const int kind = kinds.uniform_kind(layout.layers);
  const bool moe_stage = kind >= 0 ? kind == 1
                                   : std::any_of(layout.layers.begin(), layout.layers.end(),
                                                 [&](int l) { return kinds.moe(l); });
  if (moe_stage) {
    add(stage, "dispatcher_buffers", terms.dispatcher_buffers);
  }
  // The loss and a layer's backward do not overlap: count the larger. Each
  // MTP depth computes its own logits and loss on its stage.
  const double depths = (layout.has_output ? 1 : 0) + layout.mtp_layers;
  const double logits = depths * terms.logits;
  if (logits >= acts.working_set) {
    add(stage, "logits", logits);
  } else {
    add(stage, "backward_working_set", acts.working_set);
  }
  double allocated = 0;
  for (const auto& c : stage.components) {
    allocated += c.second;
  }
  // The optimizer step holds everything persistent plus its fp32 gradient
  // copy, after the activations are gone; when that is the larger, the peak
  // is the step and the components say what is alive then.
  const auto persistent_component = [](std::string_view name) {
    return name == "weights" || name == "gradients" || name == "optimizer_state" ||
           name == "fp8_weight_cache" || name == "fsdp_gather_buffers" ||
           name == "gemm_workspaces" || name == "dispatcher_buffers";
  };
  double persistent = 0;
  for (const auto& [name, bytes] : stage.components) {
    persistent += persistent_component(name) ? bytes : 0.0;
  }
  const double step = persistent + saturate(state.step_grad_copy);
  const double forward_backward = allocated;
  if (step > allocated) {
    std::erase_if(stage.components,
                  [&](const auto& c) { return !persistent_component(c.first); });
    add(stage, "optimizer_step_grads", state.step_grad_copy);
    allocated = step;
  }
  stage.allocated_peak_bytes = saturate(allocated);
  // First iteration: the forward/backward peak has no optimizer moments yet
  // (they are allocated in the step itself).
  stage.first_iteration_allocated_bytes =
      saturate(std::max(forward_backward - saturate(state.optimizer_moments), step));
  const DeviceOverheads o = device_overheads(spec, stage.allocated_peak_bytes, expandable);
  add(stage, "cuda_context", o.cuda_context);
  add(stage, "nccl_workspace", o.nccl_workspace);
  double outside = o.total();
  if (moe_stage) {
    add(stage, "deepep_buffers", terms.deepep_buffers);
    outside += terms.deepep_buffers;
  }
  add(stage, "library_workspace", o.library_workspace);
  add(stage, "fragmentation", o.fragmentation);
  stage.device_peak_bytes = saturate(stage.allocated_peak_bytes + saturate(outside));
  return stage;
}

// Features that change memory but that the estimate does not model
// (config/not_modelled.hpp); each line names the setting and what is missing.
std::vector<std::string> not_modelled_reasons(const config::JobSpec& spec)
{
  std::vector<std::string> out;
  for (const auto& item : config::not_modelled(spec)) {
    out.push_back(item.text());
  }
  return out;
}

// `fits` needs the band's upper edge within the headroom; `oom` needs even
// its lower edge above the capacity (an error finding only when the model is
// sure); anything between is `borderline`.
Verdict verdict_of(double peak, double band, double capacity)
{
  if (capacity <= 0 || !std::isfinite(peak)) {
    return Verdict::borderline;
  }
  if (peak + band <= k_fits_fraction * capacity) {
    return Verdict::fits;
  }
  return peak - band <= capacity ? Verdict::borderline : Verdict::oom;
}

void add_assumptions(const config::JobSpec& spec, const Options& options, Estimate& out)
{
  auto& a = out.assumptions;
  a.push_back("verdict: fits when the device peak plus its error band is at most 90% of the "
              "GPU capacity, oom when the peak minus the band exceeds the capacity, borderline "
              "between; unknown when a feature that changes memory is not modelled");
  a.push_back(options.expandable_segments
                  ? "expandable segments on: no fragmentation allowance"
                  : "expandable segments off: 10% of the allocated peak added as fragmentation");
  a.push_back("allocated peak includes 96 MiB of cuBLAS/TE GEMM workspaces (more for grouped "
              "GEMMs and TP overlap); device peak adds a "
              "600 MiB CUDA context, 128 MiB per NCCL communicator and 128 MiB of library "
              "scratch");
  a.push_back("balanced MoE routing (no token imbalance); activations in 16-bit, GEMM inputs "
              "kept in fp8 under FP8 recipes");
  a.push_back("not modelled: checkpoint/dataloader buffers, NCCL user buffers, allocator "
              "caching beyond the fragmentation allowance");
  if (spec.training.cuda_graphs == config::CudaGraphs::local ||
      spec.training.cuda_graphs == config::CudaGraphs::transformer_engine) {
    a.push_back("scoped CUDA graphs: the graphs of all microbatches share one memory pool "
                "captured in schedule order, taken as the eager activations");
  }
  if (config::num_microbatches(spec) == 0) {
    a.push_back("global batch is not a multiple of micro batch x DP: microbatch count rounded up");
  }
  if (config::data_parallel_size(spec) == 0) {
    a.push_back("world size is not a multiple of TP x PP x CP: DP taken as 1");
  }
  if (spec.model.num_layers <= 0 || spec.model.hidden_size <= 0) {
    a.push_back("model has no layers or no hidden size: estimate covers embeddings only");
  }
}

} // namespace

Estimate estimate(const config::JobSpec& spec, const Options& options)
{
  Estimate out;
  out.parameters = options.parameters != nullptr
                       ? *options.parameters
                       : count_parameters(spec.model, config::padded_vocab_size(spec));
  out.capacity_bytes = saturate(static_cast<double>(spec.cluster.gpu_info.capacity_bytes));
  Band band = error_band(spec);
  out.band_group = std::move(band.source);
  double per_gpu = 0;
  const auto layouts = shared_pipeline_layout(spec);  // a search's layouts share pipelines
  out.stages.reserve(layouts->size());
  StageTerms terms(spec);
  for (const StageLayout& layout : *layouts) {
    double params = 0;
    out.stages.push_back(estimate_stage(spec, layout, terms, options.expandable_segments, params));
    per_gpu = std::max(per_gpu, params);
    auto& stage = out.stages.back();
    stage.band_bytes = saturate(band.relative * stage.device_peak_bytes);
    if (stage.device_peak_bytes > out.peak_bytes) {
      out.peak_bytes = stage.device_peak_bytes;
      out.most_loaded_pp_rank = stage.pp_rank;
      out.band_bytes = stage.band_bytes;
    }
  }
  out.parameters.per_gpu = static_cast<std::int64_t>(saturate(per_gpu));
  out.not_modelled = not_modelled_reasons(spec);
  out.verdict = out.not_modelled.empty()
                    ? verdict_of(out.peak_bytes, out.band_bytes, out.capacity_bytes)
                    : Verdict::unknown;
  if (!options.assumptions) {
    return out;
  }
  add_assumptions(spec, options, out);
  if (band.records == 0 && out.band_group.starts_with("unvalidated:")) {
    out.assumptions.push_back("error band: " + std::to_string(static_cast<int>(band.relative * 100 + 0.5)) +
                              "% because no validation record covers " + out.band_group.substr(12) +
                              " (the accuracy bound, not a measured error)");
  } else {
    out.assumptions.push_back("error band: p90 of |estimate - measured| / measured over " +
                              std::to_string(band.records) + " validation record" +
                              (band.records == 1 ? "" : "s") + " (" + out.band_group + ")");
  }
  return out;
}

const char* to_string(Verdict verdict)
{
  switch (verdict) {
  case Verdict::fits: return "fits";
  case Verdict::borderline: return "borderline";
  case Verdict::oom: return "oom";
  case Verdict::unknown: return "unknown";
  }
  return "fits";
}

} // namespace lg::estimate
