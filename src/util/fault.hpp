// Crash-consistency fault injection for the fault tests (tests/e2e/fault_*):
// when the environment variable LG_FAULT_KILL_AFTER names a point
// ("submitted", "sbatch_returned", "attempt_finished#2", …), the process
// SIGKILLs itself the n-th time (default 1st) it passes that point. Unset in
// normal use; the check is one getenv per point.
#pragma once

#include <string_view>

namespace lg {

// Die by SIGKILL here if LG_FAULT_KILL_AFTER asks for `point`.
void fault_point(std::string_view point);

} // namespace lg
