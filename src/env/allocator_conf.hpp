// PYTORCH_CUDA_ALLOC_CONF as an ordered key:value list, so layers merge key by
// key instead of clobbering each other: a user's max_split_size_mb survives
// the composer's expandable_segments, and vice versa.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lg::env {

inline constexpr const char* k_alloc_conf = "PYTORCH_CUDA_ALLOC_CONF";

struct AllocEntry
{
  std::string key;
  std::string value;
};

struct AllocConf
{
  std::vector<AllocEntry> entries;  // first-seen order
  std::vector<std::string> malformed;  // parts without a ':' (PyTorch rejects them)

  // Return the value of `key`, if present.
  std::optional<std::string> get(std::string_view key) const;
  // Set `key` to `value`, keeping its position if present, else appending.
  void set(std::string_view key, std::string_view value);
  // Remove `key` if present.
  void erase(std::string_view key);
  bool empty() const { return entries.empty(); }
};

// Parse "k1:v1,k2:[a:b,c:d]" for merging (allocator_settings.hpp checks it
// the way PyTorch does). Whitespace around keys and values is trimmed, empty
// parts are skipped, parts without ':' are kept in `malformed`.
AllocConf parse_alloc_conf(std::string_view text);

// Return "k1:v1,k2:v2" in entry order.
std::string format_alloc_conf(const AllocConf& conf);

// Return true if `value` is "True": PyTorch's parser accepts exactly "True"
// and "False" for its boolean keys.
bool alloc_value_is_true(std::string_view value);

// Return the PyTorch caching-allocator keys known to this version, for typo
// findings ("Unrecognized key" is a hard error in PyTorch).
const std::vector<std::string>& known_alloc_keys();

} // namespace lg::env
