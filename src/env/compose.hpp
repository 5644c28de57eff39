// Composing the job environment: policy defaults < preset (reserved) < job
// [env] < command line. PYTORCH_CUDA_ALLOC_CONF merges key by key; every
// other variable is replaced whole by a higher layer. A user value that breaks
// a hard rule is kept, with an error finding that says what will fail and
// where upstream asserts it. Pure: no I/O.
#pragma once

#include "config/job_spec.hpp"
#include "env/environment.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lg::env {

using Assignments = std::vector<std::pair<std::string, std::string>>;

// Compose the environment of `spec`, with `command_line_overrides` (in
// order; a later one wins) as the highest layer.
Environment compose(const config::JobSpec& spec, const Assignments& command_line_overrides);

// Split "NAME=VALUE" at the first '='; nullopt when there is none or NAME is
// empty. The name is not validated here (compose reports invalid names).
std::optional<std::pair<std::string, std::string>> parse_assignment(std::string_view text);

} // namespace lg::env
