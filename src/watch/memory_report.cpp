#include "watch/memory_report.hpp"

#include <charconv>
#include <cstdlib>
#include <string>

namespace lg::watch {

namespace {

// The number after "<label>:" in `line`, or nullopt.
std::optional<double> value_after(std::string_view line, std::string_view label)
{
  std::size_t at = 0;
  while ((at = line.find(label, at)) != std::string_view::npos) {
    // "allocated:" also occurs inside "max allocated:"; require a boundary.
    const bool boundary = at == 0 || line[at - 1] == ' ' || line[at - 1] == '|';
    const bool preceded_by_max = at >= 4 && line.substr(at - 4, 4) == "max ";
    if (boundary && !(label.substr(0, 4) != "max " && preceded_by_max)) {
      std::size_t p = at + label.size();
      while (p < line.size() && line[p] == ' ') {
        ++p;
      }
      const std::string number(line.substr(p, 32));
      char* end = nullptr;
      const double value = std::strtod(number.c_str(), &end);
      if (end != number.c_str()) {
        return value;
      }
      return std::nullopt;
    }
    at += label.size();
  }
  return std::nullopt;
}

} // namespace

std::optional<MemoryReport> parse_memory_report(std::string_view line)
{
  double unit = 0;
  if (line.find("memory (MB)") != std::string_view::npos) {
    unit = 1024.0 * 1024.0;
  } else if (line.find("memory (GB)") != std::string_view::npos) {
    unit = 1e9;
  } else {
    return std::nullopt;
  }
  const auto max_allocated = value_after(line, "max allocated:");
  if (!max_allocated) {
    return std::nullopt;
  }
  MemoryReport report;
  report.max_allocated_bytes = *max_allocated * unit;
  report.allocated_bytes = value_after(line, "allocated:").value_or(0) * unit;
  report.reserved_bytes = value_after(line, "reserved:").value_or(0) * unit;
  report.max_reserved_bytes = value_after(line, "max reserved:").value_or(0) * unit;
  if (const auto at = line.find("[Rank "); at != std::string_view::npos) {
    int rank = -1;
    const auto digits = line.substr(at + 6);
    std::from_chars(digits.data(), digits.data() + digits.size(), rank);
    report.rank = rank;
  }
  return report;
}

} // namespace lg::watch
