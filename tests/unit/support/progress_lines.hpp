// Trainer progress lines in upstream's format, for the watch tests:
// Megatron-LM megatron/training/training.py training_log()
// (" iteration {:8d}/{:8d} |", " elapsed time per iteration (ms): {:.1f} |").
#pragma once

#include <fmt/format.h>

#include <string>

namespace lg::testing {

// Megatron's training_log() line for `iteration` of 1000 (the date prefix
// is datetime.now() '%Y-%m-%d %H:%M:%S.%f').
inline std::string megatron_iteration_line(long iteration, double step_ms,
                                           const std::string& stamp = "2026-08-22 15:22:22.123456")
{
  return fmt::format(
    " [{}] iteration {:8d}/{:8d} | consumed samples: {:12d} | elapsed time per iteration (ms): {:.1f} | "
    "learning rate: 3.000000E-04 | global batch size:    32 | lm loss: 9.817120E+00 | loss scale: 1.0 |",
    stamp, iteration, 1000, iteration * 32, step_ms);
}

}  // namespace lg::testing
