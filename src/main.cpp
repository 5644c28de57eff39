// launchguard: preflight, launch and diagnose large GPU training jobs on
// Slurm. main() is the only catch-all.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "util/error.hpp"
#include "util/terminal.hpp"

#include <fmt/core.h>

namespace {

void print_error(const lg::Error& e)
{
  fmt::print(stderr, "launchguard: error: {}\n", lg::printable(e.what()));
  if (!e.hint.empty()) {
    fmt::print(stderr, "  hint: {}\n", lg::printable(e.hint));
  }
}

} // namespace

int main(int argc, char** argv)
{
  try {
    return lg::cli::run(argc, argv);
  } catch (const lg::UsageError& e) {
    print_error(e);
    return lg::k_exit_usage;
  } catch (const lg::InputError& e) {
    print_error(e);
    return lg::k_exit_usage;
  } catch (const lg::SystemError& e) {
    print_error(e);
    return lg::k_exit_system;
  } catch (const lg::Error& e) {
    print_error(e);
    return lg::k_exit_job_errors;
  } catch (const std::exception& e) {
    // A bug, not a user error: say so, so it gets reported.
    fmt::print(stderr, "launchguard: internal error: {}\n", lg::printable(e.what()));
    return lg::k_exit_system;
  }
}
