// PYTORCH_CUDA_ALLOC_CONF read the way PyTorch reads it, so that every
// command agrees on what the allocator will do and on what PyTorch rejects.
//
// Upstream: pytorch/pytorch c10/core/AllocatorConfig.h (ConfigTokenizer),
// c10/core/AllocatorConfig.cpp (AcceleratorAllocatorConfig::parseArgs, the
// device-generic keys) and c10/cuda/CUDAAllocatorConfig.cpp
// (CUDAAllocatorConfig::parseArgs, the CUDA keys and `backend`); PyTorch
// 2.4-2.7 had one parser in c10/cuda/CUDAAllocatorConfig.cpp with the same
// keys and ranges and the messages quoted as `message_before_2_8`.
//
// The grammar: the text is split into tokens at ',' ':' '[' ']' (each its own
// token), whitespace dropped; then `key : value` or `key : [ ... ]` separated
// by ','. Keys and values are case-sensitive: booleans are exactly `True` or
// `False`. Pure: no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lg::env {

struct Environment;

// The rule id of the error finding for a string PyTorch rejects.
inline constexpr const char* k_allocator_config_error = "allocator_config_error";

// Why PyTorch refuses the string (it raises at the first CUDA allocation, so
// the job dies at start-up).
struct AllocatorError
{
  std::string key;      // the key at fault; empty for a structural error
  std::string message;  // PyTorch's message (2.8 and later)
  std::string message_before_2_8;  // the same check's message in 2.4-2.7
  std::string fix;      // what to write instead, concretely
  // The allocator string with the offending part corrected or left out: what
  // the user most likely meant (for estimating), never what PyTorch runs.
  std::string corrected;
};

// What the allocator will do. For a string PyTorch rejects, `error` says why
// and the other fields describe `error->corrected` (what the user meant), so
// that estimates and fixes judge the intended job; the job itself would not
// start until the string is corrected.
struct AllocatorSettings
{
  bool expandable_segments = false;  // expandable_segments:True
  bool cuda_malloc_async = false;    // backend:cudaMallocAsync
  // Keys that only the native caching allocator reads, set while
  // backend:cudaMallocAsync is chosen (PyTorch warns and ignores them).
  std::vector<std::string> ignored_by_async;
  std::optional<AllocatorError> error;  // the first thing PyTorch rejects

  bool valid() const { return !error.has_value(); }
  // Whether the native allocator's expandable segments are in effect (the
  // estimator's fragmentation switch): set, and the native backend.
  bool expandable_in_effect() const { return expandable_segments && !cuda_malloc_async; }
};

// Parse `text` (the value of PYTORCH_CUDA_ALLOC_CONF) as PyTorch does.
AllocatorSettings parse_allocator_settings(std::string_view text);

// Parse the composed PYTORCH_CUDA_ALLOC_CONF of `environment` (unset: the
// defaults, no expandable segments).
AllocatorSettings allocator_settings_of(const Environment& environment);

// PyTorch's tokens of `text`: separators ',' ':' '[' ']' are tokens of their
// own, whitespace is dropped.
std::vector<std::string> allocator_tokens(std::string_view text);

// PyTorch's warning when backend:cudaMallocAsync is combined with keys of
// the native allocator (c10/cuda/CUDAAllocatorConfig.cpp, parseArgs).
inline constexpr const char* k_async_ignores_warning =
  "backend:cudaMallocAsync ignores max_split_size_mb,roundup_power2_divisions, and "
  "garbage_collect_threshold.";

} // namespace lg::env
