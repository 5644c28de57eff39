// launchguard: preflight, launch and diagnose large GPU training jobs on
// Slurm. main() is the only catch-all.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "util/error.hpp"
#include "util/terminal.hpp"

#include <fmt/core.h>

int main(int argc, char** argv)
{
  try {
    return lg::cli::run(argc, argv);
  } catch (const lg::UsageError& e) {
    lg::cli::print_error(e);
    return lg::k_exit_usage;
  } catch (const lg::InputError& e) {
    lg::cli::print_error(e);
    return lg::k_exit_usage;
  } catch (const lg::SystemError& e) {
    lg::cli::print_error(e);
    return lg::k_exit_system;
  } catch (const lg::Error& e) {
    lg::cli::print_error(e);
    return lg::k_exit_job_errors;
  } catch (const std::exception& e) {
    // A bug, not a user error: say so, so it gets reported.
    fmt::print(stderr, "launchguard: internal error: {}\n", lg::printable(e.what()));
    return lg::k_exit_system;
  }
}
