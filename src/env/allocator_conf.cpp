// Parsing and printing PYTORCH_CUDA_ALLOC_CONF key by key.
#include "env/allocator_conf.hpp"

#include "util/strings.hpp"

#include <algorithm>

namespace lg::env {

std::optional<std::string> AllocConf::get(std::string_view key) const
{
  for (const auto& entry : entries) {
    if (entry.key == key) {
      return entry.value;
    }
  }
  return std::nullopt;
}

void AllocConf::set(std::string_view key, std::string_view value)
{
  for (auto& entry : entries) {
    if (entry.key == key) {
      entry.value = std::string(value);
      return;
    }
  }
  entries.push_back({std::string(key), std::string(value)});
}

void AllocConf::erase(std::string_view key)
{
  std::erase_if(entries, [&](const AllocEntry& entry) { return entry.key == key; });
}

namespace {

// Split at the commas between settings, not at those inside a [ ] list
// (roundup_power2_divisions:[64:8,256:4]).
std::vector<std::string> top_level_parts(std::string_view text)
{
  std::vector<std::string> parts(1);
  int depth = 0;
  for (char c : text) {
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    if (c == ',' && depth <= 0) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

} // namespace

AllocConf parse_alloc_conf(std::string_view text)
{
  AllocConf conf;
  for (const std::string& part : top_level_parts(text)) {
    const std::string_view trimmed = trim(part);
    if (trimmed.empty()) {
      continue;
    }
    const auto colon = trimmed.find(':');
    if (colon == std::string_view::npos) {
      conf.malformed.emplace_back(trimmed);
      continue;
    }
    conf.set(trim(trimmed.substr(0, colon)), trim(trimmed.substr(colon + 1)));
  }
  return conf;
}

std::string format_alloc_conf(const AllocConf& conf)
{
  std::vector<std::string> parts;
  parts.reserve(conf.entries.size());
  for (const auto& entry : conf.entries) {
    parts.push_back(entry.key + ":" + entry.value);
  }
  return join(parts, ",");
}

bool alloc_value_is_true(std::string_view value)
{
  return value == "True";
}

const std::vector<std::string>& known_alloc_keys()
{
  // c10/cuda/CUDAAllocatorConfig.cpp and c10/core/AllocatorConfig.cpp
  // (PyTorch 2.4-2.9).
  static const std::vector<std::string> keys = {
    "backend",
    "expandable_segments",
    "garbage_collection_threshold",
    "graph_capture_record_stream_reuse",
    "max_non_split_rounding_mb",
    "max_split_size_mb",
    "per_process_memory_fraction",
    "pinned_num_register_threads",
    "pinned_reserve_segment_size_mb",
    "pinned_use_background_threads",
    "pinned_use_cuda_host_register",
    "pinned_use_hip_host_register",
    "release_lock_on_cudamalloc",
    "roundup_power2_divisions",
  };
  return keys;
}

} // namespace lg::env
