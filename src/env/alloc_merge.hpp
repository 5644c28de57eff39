// Merging the user's PYTORCH_CUDA_ALLOC_CONF into the policy's, key by key.
#pragma once

#include "config/job_spec.hpp"
#include "env/environment.hpp"
#include "env/policy.hpp"

#include <string>
#include <vector>

namespace lg::env {

// One user assignment with the layer it came from.
struct UserValue
{
  std::string name;
  std::string value;
  Layer layer = Layer::job;
};

// Return the composed PYTORCH_CUDA_ALLOC_CONF: the policy's keys
// (policy_alloc_conf) with every user layer's keys merged over them in
// order. Appends findings: the policy dropping expandable_segments for NCCL
// UB (warning), a user key changing a policy key (warning), a malformed part
// (error), an unknown key (warning).
Variable merge_alloc_conf(const JobFeatures& features,
                          const config::JobSpec& spec,
                          const std::vector<UserValue>& users,
                          std::vector<Diagnostic>& findings);

// Return true if `alloc` (a composed PYTORCH_CUDA_ALLOC_CONF) sets
// expandable_segments:True.
bool alloc_has_expandable(const Variable& alloc);

} // namespace lg::env
