// A synthetic srun --label log of a 64-rank Megatron job: iteration lines,
// timers, memory reports, NCCL INFO, benign warnings, one CUDA OOM deep
// inside and the NCCL watchdog timeouts of the other ranks at the end.
#pragma once

#include <cstddef>
#include <string>

namespace lg::bench {

// Write about `bytes` of log to `path`; the OOM starts at about 60 %.
// Return the 1-based line of the OOM message.
std::size_t write_synthetic_log(const std::string& path, std::size_t bytes);

} // namespace lg::bench
