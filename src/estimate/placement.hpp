// Placement of parameters on one GPU of a pipeline stage: the TP share of
// attention/MLP, replicated norms and routers, the EP x ETP share of routed
// experts, embeddings/output layer on the first/last stage, MTP modules on the
// last stage, and LoRA adapters on their targets.
#pragma once

#include "config/job_spec.hpp"
#include "estimate/layer_kinds.hpp"
#include "estimate/model_state.hpp"
#include "estimate/pipeline.hpp"

namespace lg::estimate {

// Return the parameters one GPU of `stage` holds.
StageParameters stage_parameters(const config::JobSpec& spec, const StageLayout& stage);
// The same with the kinds of the job's layers, kept across the stages of an estimate.
StageParameters stage_parameters(const config::JobSpec& spec, const StageLayout& stage, const LayerKinds& kinds);

// Return the LoRA adapter parameters of layer `layer` on one GPU (rank r on
// each target: A is in x r, B is r x out; expert targets per local expert).
double lora_parameters(const config::JobSpec& spec, int layer);

} // namespace lg::estimate
