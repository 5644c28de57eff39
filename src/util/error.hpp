// Errors that stop the current command. main() is the only place that catches
// them; it prints "launchguard: error: <what>" and, when set, "  hint: <hint>".
#pragma once

#include <fmt/core.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace lg {

// Throw an Error when the current command cannot continue. Add context when
// rethrowing; never swallow. Exit code: the one in `exit_code` (default 2 for
// input errors is set by subclasses).
class Error : public std::runtime_error
{
public:
  template<typename... Args>
  explicit Error(fmt::format_string<Args...> format, Args&&... args)
    : std::runtime_error(fmt::format(format, std::forward<Args>(args)...))
  {
  }

  // Optional second line, printed as "  hint: <hint>".
  std::string hint;
};

// The command line or an input file is wrong; main() exits with 2.
class UsageError : public Error
{
public:
  using Error::Error;
};

// An input file (job TOML, log, script) is malformed; main() exits with 2.
class InputError : public Error
{
public:
  using Error::Error;
};

// Slurm or the system failed (sbatch refused, controller unreachable after
// retries, disk full); main() exits with 3.
class SystemError : public Error
{
public:
  using Error::Error;
};

} // namespace lg
