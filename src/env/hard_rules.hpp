// The hard environment rules: upstream asserts (or warnings) that a composed
// environment can break once a user layer has overridden the policy.
#pragma once

#include "config/job_spec.hpp"
#include "env/environment.hpp"
#include "env/policy.hpp"

#include <vector>

namespace lg::env {

// Return the findings of `environment` against the hard rules for a job with
// `features`; locations come from `spec`.
std::vector<Diagnostic> check_hard_rules(const JobFeatures& features,
                                         const config::JobSpec& spec,
                                         const Environment& environment);

} // namespace lg::env
