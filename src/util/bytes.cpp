#include "util/bytes.hpp"

#include <fmt/core.h>

#include <cmath>

namespace lg {

std::string format_bytes(double bytes)
{
  const double magnitude = std::fabs(bytes);
  if (magnitude >= k_gib) {
    return fmt::format("{:.2f} GiB", bytes / k_gib);
  }
  if (magnitude >= k_mib) {
    return fmt::format("{:.1f} MiB", bytes / k_mib);
  }
  if (magnitude >= 1024.0) {
    return fmt::format("{:.1f} KiB", bytes / 1024.0);
  }
  return fmt::format("{:.0f} B", bytes);
}

} // namespace lg
