// The hard environment rules: upstream asserts (or warnings) that a composed
// environment can break once a user layer has overridden the policy.
#pragma once

#include "config/job_spec.hpp"
#include "env/environment.hpp"
#include "env/policy.hpp"

#include <string_view>
#include <vector>

namespace lg::env {

// Return the findings of `environment` against the hard rules for a job with
// `features`; locations come from `spec`.
std::vector<Diagnostic> check_hard_rules(const JobFeatures& features,
                                         const config::JobSpec& spec,
                                         const Environment& environment);

// What `name`=`value` does when it is one of the debugging switches
// env.debug_setting reports (CUDA_LAUNCH_BLOCKING=1, …), or null.
const char* debug_setting_effect(std::string_view name, std::string_view value);

} // namespace lg::env
