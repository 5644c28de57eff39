// Byte quantities as users read them.
#pragma once

#include <cstdint>
#include <string>

namespace lg {

inline constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;
inline constexpr double k_mib = 1024.0 * 1024.0;

// Format `bytes` as "58.80 GiB" (binary units; two decimals from GiB up).
std::string format_bytes(double bytes);

} // namespace lg
