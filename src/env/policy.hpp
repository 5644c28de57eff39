// The environment policy (Megatron-LM, Megatron Bridge, NCCL; each row
// cites upstream) as a table: one row
// per variable, each row a function from the job's features to a decision
// (value, rule id, reason, upstream citation) or "not set for this job".
// compose.cpp layers the user's values on top; hard_rules.cpp checks them.
#pragma once

#include "config/job_spec.hpp"

#include <optional>
#include <span>
#include <string>

namespace lg::env {

// What the policy decides from: read once from the JobSpec so that each row
// is a short, testable predicate.
struct JobFeatures
{
  config::GpuGeneration generation = config::GpuGeneration::hopper;
  std::string gpu_name;      // preset name, "h100-80gb", "gb200", "b300", …
  config::Framework framework = config::Framework::megatron_bridge;
  std::string model_preset;  // "llama3-70b", … (empty when keys are given)
  int tp = 1;
  int cp = 1;
  int pp = 1;
  int ep = 1;
  bool fsdp = false;             // Megatron-FSDP or Torch FSDP2
  bool ep_a2a_overlap = false;   // overlap_moe_expert_parallel_comm
  bool flex_dispatcher = false;  // MoE token_dispatcher = flex (DeepEP/HybridEP)
  config::CudaGraphs cuda_graphs = config::CudaGraphs::none;
  bool nccl_ub = false;
  bool fine_grained_offloading = false;
  bool comm_overlap = false;  // TP or DP communication overlap
  bool nvfp4 = false;
  // Where the NCCL flight recorder's dumps go (env/flight_recorder.hpp);
  // empty: PyTorch's default.
  std::string flight_recorder_prefix;
  // Filled by compose() after the layers are merged: whether the final
  // PYTORCH_CUDA_ALLOC_CONF has expandable_segments:True.
  bool expandable_segments = false;
};

// Read the features of `spec` (expandable_segments stays false).
JobFeatures features_of(const config::JobSpec& spec);

// True on SM >= 10 (B200, B300, GB200, GB300, VR200, R100).
bool is_blackwell_or_newer(const JobFeatures& features);

// "TP=4", "CP=2" or "TP=4 CP=2": the model-parallel sizes above 1 that make
// CUDA_DEVICE_MAX_CONNECTIONS matter. A size of 1 is not named (an audit
// that could not read CP must not print "CP=1").
std::string tp_cp_text(const JobFeatures& features);

struct Decision
{
  std::string value;
  std::string rule;      // "env.cuda_device_max_connections_tp_cp"
  std::string reason;    // in words, with the upstream message where one exists
  std::string citation;  // "[ML] path:Lx-Ly; [MB] …"
  bool unset = false;    // the policy wants the variable removed
  bool per_job = false;  // "%j" in value is the Slurm job id (Variable::per_job)
};

using DecideFn = std::optional<Decision> (*)(const JobFeatures& features);

struct PolicyRow
{
  const char* name;
  DecideFn decide;
};

// The rows in output order. The PYTORCH_CUDA_ALLOC_CONF row returns the
// policy's keys; compose() merges user keys into them key by key.
std::span<const PolicyRow> policy_rows();

// A.2: the CUDA_DEVICE_MAX_CONNECTIONS decision with its hard overlays
// (connections.cpp).
Decision decide_connections(const JobFeatures& features);

// The policy's PYTORCH_CUDA_ALLOC_CONF keys for the job and why; `unset` when
// no key remains (NCCL UB without full-iteration graphs).
Decision policy_alloc_conf(const JobFeatures& features);

} // namespace lg::env
