// Internal to src/config: the flags of a Megatron-LM command line, and the
// reader that turns them into JobSpec fields with the job file's ranges
// (megatron_flags.cpp, megatron_sections.cpp; used by megatron_args.cpp).
#pragma once

#include "config/job_spec.hpp"

#include "util/error.hpp"

#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lg::config::detail {

// Flags and the words after each, up to the next "--flag".
constexpr long long k_max_int = std::numeric_limits<int>::max();

struct Flag
{
  std::vector<std::string> values;
  int position = 0;  // 1-based word index of the flag
};
using FlagMap = std::map<std::string, Flag>;

bool is_flag(const std::string& word);

// Every "--flag" of `argv` with the words after it; a later occurrence of a
// flag replaces an earlier one, as argparse does.
FlagMap collect_flags(const std::vector<std::string>& argv);

class Reader
{
public:
  Reader(const FlagMap& flags, JobSpec& spec)
    : m_flags(flags),
      m_spec(spec)
  {}

  bool has(const std::string& name) const { return m_flags.count(name) != 0; }

  const Flag* find(const std::string& name, const std::string& key)
  {
    const auto it = m_flags.find(name);
    if (it == m_flags.end()) {
      return nullptr;
    }
    if (!key.empty()) {
      m_spec.locations[key] = SourceLocation{"command line", 1, it->second.position};
    }
    return &it->second;
  }

  // The integer after --`name`, within [`min`, `max`]: the job file's ranges
  // (schema.cpp), so the estimator and the rules see the same values from
  // both inputs.
  std::optional<long long> integer(const std::string& name, const std::string& key = {}, long long min = 0,
                                   long long max = k_max_int)
  {
    const Flag* flag = find(name, key);
    if (flag == nullptr) {
      return std::nullopt;
    }
    const std::string text = flag->values.empty() ? "" : flag->values.front();
    long long value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) {
      InputError error("command line:1:{}: --{} needs an integer, got '{}'", flag->position, name, text);
      error.hint = fmt::format("write --{} 4", name);
      throw error;
    }
    if (value < min || value > max) {
      InputError error("command line:1:{}: --{} must be between {} and {}, got {}", flag->position, name, min, max,
                       value);
      throw error;
    }
    return value;
  }

  std::optional<double> number(const std::string& name, const std::string& key = {}, double min = 0.0, double max = 1.0)
  {
    const Flag* flag = find(name, key);
    if (flag == nullptr) {
      return std::nullopt;
    }
    const std::string text = flag->values.empty() ? "" : flag->values.front();
    try {
      std::size_t used = 0;
      const double value = std::stod(text, &used);
      if (used == text.size() && value >= min && value <= max) {  // false for NaN
        return value;
      }
    } catch (const std::exception&) {
    }
    InputError error("command line:1:{}: --{} needs a number between {} and {}, got '{}'", flag->position, name, min,
                     max, text);
    throw error;
  }

  std::optional<std::string> word(const std::string& name, const std::string& key = {})
  {
    const Flag* flag = find(name, key);
    if (flag == nullptr) {
      return std::nullopt;
    }
    if (flag->values.empty()) {
      InputError error("command line:1:{}: --{} needs a value", flag->position, name);
      throw error;
    }
    return flag->values.front();
  }

  std::optional<std::vector<std::string>> words(const std::string& name, const std::string& key = {})
  {
    const Flag* flag = find(name, key);
    if (flag == nullptr) {
      return std::nullopt;
    }
    return flag->values;
  }

  bool set(const std::string& name, const std::string& key = {}) { return find(name, key) != nullptr; }

  const FlagMap& flags() const { return m_flags; }

private:
  const FlagMap& m_flags;
  JobSpec& m_spec;
};

template<typename T>
void assign(std::optional<long long> value, T& target)
{
  if (value) {
    target = static_cast<T>(*value);
  }
}

// Read every flag of `flags` into `spec`, as job_from_megatron_args does
// (megatron_sections.cpp).
void read_megatron_flags(const FlagMap& flags, JobSpec& spec);

}  // namespace lg::config::detail
