// Megatron's per-rank memory report lines, parsed for the live "max
// allocated" that `watch` shows against the estimate:
//   [Rank 3] (after 10 iterations) memory (MB) | allocated: 1.0 | max allocated: 2.0 | reserved: 3.0 | max reserved: 4.0
// (megatron/training/utils/common_utils.py report_memory, MiB) and Megatron
// Bridge's "memory (GB) | … max allocated: …" variant (decimal GB).
#pragma once

#include <optional>
#include <string_view>

namespace lg::watch {

struct MemoryReport
{
  int rank = -1;  // -1 when the line names none
  double allocated_bytes = 0;
  double max_allocated_bytes = 0;
  double reserved_bytes = 0;
  double max_reserved_bytes = 0;
};

// Parse one log line; nullopt when it is not a memory report.
std::optional<MemoryReport> parse_memory_report(std::string_view line);

} // namespace lg::watch
