// Subcommands whose stage has not landed yet. Each says so plainly and exits
// with the usage code; none pretends to work.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "util/error.hpp"

namespace lg::cli {

namespace {

[[noreturn]] void not_yet(const char* name)
{
  UsageError error("'{}' is not available in this build yet", name);
  error.hint = "see the project's issues for its status";
  throw error;
}

} // namespace

int run_audit(const GlobalOptions&, const std::vector<std::string>&) { not_yet("audit"); }

} // namespace lg::cli
