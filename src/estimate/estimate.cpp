// The estimate itself: per pipeline rank, persistent model state plus the
// activations alive at that rank's peak plus the largest transient (logits or
// one layer's backward working set); device overheads on top; the verdict
// against the GPU's capacity; the what-if table.
#include "estimate/estimate.hpp"

#include "estimate/activations.hpp"
#include "estimate/overheads.hpp"
#include "estimate/parameters.hpp"
#include "estimate/pipeline.hpp"
#include "estimate/placement.hpp"

#include <algorithm>

namespace lg::estimate {
namespace {

// Headroom rule: fits up to 90% of capacity, borderline up to 100%.
constexpr double k_fits_fraction = 0.90;

void add(StageEstimate& stage, const char* name, double bytes)
{
  if (bytes > 0) {
    stage.components.emplace_back(name, bytes);
  }
}

StageEstimate estimate_stage(const config::JobSpec& spec, const StageLayout& layout,
                             bool expandable, double& params_on_gpu)
{
  StageEstimate stage;
  stage.pp_rank = layout.pp_rank;
  stage.layers = static_cast<int>(layout.layers.size());
  stage.in_flight_microbatches = layout.in_flight_chunks;
  const StageParameters params = stage_parameters(spec, layout);
  params_on_gpu = params.dense + params.experts + params.lora;
  const ModelStateBytes state = model_state_bytes(spec, params);
  add(stage, "weights", state.weights);
  add(stage, "gradients", state.gradients);
  add(stage, "optimizer_state", state.optimizer_state);
  add(stage, "fp8_weight_cache", state.fp8_weight_cache);
  add(stage, "fsdp_gather_buffers", state.fsdp_gather_buffers);
  const StageActivations acts = stage_activation_bytes(
      spec, layout.layers, layout.chunks, layout.in_flight_chunks, layout.in_flight_microbatches,
      layout.has_embedding, layout.has_output);
  add(stage, "activations", acts.layers);
  add(stage, "lora_retained_inputs", acts.lora);
  add(stage, "embedding_activations", acts.embedding);
  add(stage, "output_activations", acts.output);
  add(stage, "gemm_workspaces", k_gemm_workspace_bytes);
  // The loss and a layer's backward do not overlap: count the larger.
  const double logits = layout.has_output ? logits_bytes(spec) : 0.0;
  if (logits >= acts.working_set) {
    add(stage, "logits", logits);
  } else {
    add(stage, "backward_working_set", acts.working_set);
  }
  double allocated = 0;
  for (const auto& c : stage.components) {
    allocated += c.second;
  }
  stage.allocated_peak_bytes = allocated;
  const DeviceOverheads o = device_overheads(spec, allocated, expandable);
  add(stage, "cuda_context", o.cuda_context);
  add(stage, "nccl_workspace", o.nccl_workspace);
  add(stage, "library_workspace", o.library_workspace);
  add(stage, "fragmentation", o.fragmentation);
  stage.device_peak_bytes = allocated + o.total();
  return stage;
}

Verdict verdict_of(double peak, double capacity)
{
  if (capacity <= 0) {
    return Verdict::borderline;
  }
  if (peak <= k_fits_fraction * capacity) {
    return Verdict::fits;
  }
  return peak <= capacity ? Verdict::borderline : Verdict::oom;
}

void add_assumptions(const config::JobSpec& spec, const Options& options, Estimate& out)
{
  auto& a = out.assumptions;
  a.push_back("verdict: fits when the device peak is at most 90% of the GPU capacity, "
              "borderline up to 100%, oom above");
  a.push_back(options.expandable_segments
                  ? "expandable segments on: no fragmentation allowance"
                  : "expandable segments off: 10% of the allocated peak added as fragmentation");
  a.push_back("allocated peak includes 96 MiB of cuBLAS/TE GEMM workspaces; device peak adds a "
              "600 MiB CUDA context, 128 MiB per NCCL communicator and 128 MiB of library "
              "scratch");
  a.push_back("balanced MoE routing (no token imbalance); activations in 16-bit, GEMM inputs "
              "kept in fp8 under FP8 recipes");
  a.push_back("not modelled: CUDA graph pools, checkpoint/dataloader buffers, NCCL user "
              "buffers, allocator caching beyond the fragmentation allowance");
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
  out.parameters = count_parameters(spec.model, config::padded_vocab_size(spec));
  out.capacity_bytes = static_cast<double>(spec.cluster.gpu_info.capacity_bytes);
  double per_gpu = 0;
  for (const StageLayout& layout : pipeline_layout(spec)) {
    double params = 0;
    out.stages.push_back(estimate_stage(spec, layout, options.expandable_segments, params));
    per_gpu = std::max(per_gpu, params);
    const auto& stage = out.stages.back();
    if (stage.device_peak_bytes > out.peak_bytes) {
      out.peak_bytes = stage.device_peak_bytes;
      out.most_loaded_pp_rank = stage.pp_rank;
    }
  }
  out.parameters.per_gpu = static_cast<std::int64_t>(per_gpu);
  out.verdict = verdict_of(out.peak_bytes, out.capacity_bytes);
  add_assumptions(spec, options, out);
  return out;
}

const char* to_string(Verdict verdict)
{
  switch (verdict) {
  case Verdict::fits: return "fits";
  case Verdict::borderline: return "borderline";
  case Verdict::oom: return "oom";
  }
  return "fits";
}

} // namespace lg::estimate
