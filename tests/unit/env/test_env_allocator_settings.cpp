// PYTORCH_CUDA_ALLOC_CONF read as PyTorch reads it. Each expected message is
// PyTorch's: c10/core/AllocatorConfig.{h,cpp} (ConfigTokenizer, the generic
// keys), c10/cuda/CUDAAllocatorConfig.cpp (backend and the CUDA keys), and the
// 2.4-2.7 parser in c10/cuda/CUDAAllocatorConfig.cpp for message_before_2_8.
#include "env/allocator_settings.hpp"

#include <doctest/doctest.h>

using lg::env::parse_allocator_settings;

namespace {

std::string message(std::string_view text)
{
  const auto settings = parse_allocator_settings(text);
  return settings.error ? settings.error->message : std::string();
}

std::string old_message(std::string_view text)
{
  const auto settings = parse_allocator_settings(text);
  return settings.error ? settings.error->message_before_2_8 : std::string();
}

} // namespace

TEST_SUITE_BEGIN("env");

TEST_CASE("allocator: tokens split at , : [ ] and drop whitespace, as ConfigTokenizer does")
{
  CHECK(lg::env::allocator_tokens(" a : 1 ,b:[64:8, >:1]")
        == std::vector<std::string>{"a", ":", "1", ",", "b", ":", "[", "64", ":", "8", ",", ">", ":", "1", "]"});
}

TEST_CASE("allocator: valid strings, whitespace ignored, last value wins")
{
  CHECK(parse_allocator_settings("").valid());
  CHECK(parse_allocator_settings("expandable_segments : True").expandable_in_effect());
  const auto s = parse_allocator_settings(
    "max_split_size_mb:512,garbage_collection_threshold:0.6,roundup_power2_divisions:[64:8,256:4,>:1],"
    "expandable_segments:True,expandable_segments:False");
  CHECK(s.valid());
  CHECK_FALSE(s.expandable_segments);
  CHECK(parse_allocator_settings("roundup_power2_divisions:4,pinned_num_register_threads:8").valid());
}

TEST_CASE("allocator: booleans are exactly True or False")
{
  const auto s = parse_allocator_settings("expandable_segments:true");
  REQUIRE(s.error);
  CHECK(s.error->key == "expandable_segments");
  CHECK(s.error->message == "Expected 'True' or 'False' at index 2 in ConfigTokenizer but got 'true'");
  CHECK(s.error->message_before_2_8 == "Expected a single True/False argument for expandable_segments");
  CHECK(s.error->corrected == "expandable_segments:True");
  CHECK(s.expandable_segments);  // the corrected reading
  CHECK(old_message("release_lock_on_hipmalloc:1")
        == "Expected a single True/False argument for release_lock_on_cudamalloc");
}

TEST_CASE("allocator: unknown keys, case included, are rejected")
{
  CHECK(message("Expandable_Segments:True") == "Unrecognized key 'Expandable_Segments' in CUDA allocator config.");
  CHECK(old_message("foo:1") == "Unrecognized CachingAllocator option: foo");
  CHECK(parse_allocator_settings("Expandable_Segments:True").error->fix.find("expandable_segments")
        != std::string::npos);
}

TEST_CASE("allocator: value ranges")
{
  CHECK(message("max_split_size_mb:19") == "CachingAllocator option max_split_size_mb too small, must be >= 20");
  CHECK(message("max_non_split_rounding_mb:1")
        == "CachingAllocator option max_non_split_rounding_mb too small, must be >= 20");
  CHECK(message("garbage_collection_threshold:1.0") == "garbage_collect_threshold is invalid, set it in (0.0, 1.0)");
  CHECK(message("per_process_memory_fraction:1.5") == "per_process_memory_fraction is invalid, set it in [0.0, 1.0]");
  CHECK(message("roundup_power2_divisions:3") == "For roundups, the divisions has to be power of 2 ");
  CHECK(message("roundup_power2_divisions:[64:3]")
        == "For roundups, the divisions has to be power of 2 or 0 to disable roundup ");
  CHECK(message("roundup_power2_divisions:[65:4]") == "For roundups, the intervals have to be power of 2 ");
  CHECK(message("pinned_num_register_threads:3") == "Number of register threads has to be power of 2, got 3");
  CHECK(message("pinned_num_register_threads:256")
        == "Number of register threads should be less than or equal to 128, got 256");
  CHECK(message("pinned_reserve_segment_size_mb:0") == "Pinned reserve segment size has to be greater than 0");
  CHECK(message("max_split_size_mb:big") == "stoull");
  CHECK(message("backend:magic") == "Unknown allocator backend, options are native and cudaMallocAsync");
}

TEST_CASE("allocator: separators")
{
  CHECK(old_message("expandable_segments") == "Error parsing CachingAllocator settings, expected :");
  CHECK(message("expandable_segments") == "Index out of bounds in ConfigTokenizer");
  CHECK(message("expandable_segments:") == "Index out of bounds in ConfigTokenizer");
  // Whitespace is dropped, so a missing comma glues two settings together.
  CHECK(message("max_split_size_mb:512 expandable_segments:True")
        == "Error parsing CachingAllocator settings, expected ,");
  CHECK_FALSE(parse_allocator_settings("max_split_size_mb:512:1").valid());
  CHECK_FALSE(parse_allocator_settings(",expandable_segments:True").valid());
}

TEST_CASE("allocator: backend:cudaMallocAsync ignores the native allocator's keys")
{
  const auto s = parse_allocator_settings("backend:cudaMallocAsync,expandable_segments:True,max_split_size_mb:512");
  CHECK(s.valid());
  CHECK(s.cuda_malloc_async);
  CHECK(s.expandable_segments);
  CHECK_FALSE(s.expandable_in_effect());
  CHECK(s.ignored_by_async == std::vector<std::string>{"expandable_segments", "max_split_size_mb"});
  CHECK(parse_allocator_settings("backend:native,max_split_size_mb:512").ignored_by_async.empty());
}

TEST_CASE("allocator: the corrected string keeps every other part")
{
  const auto s = parse_allocator_settings("max_split_size_mb:512,expandable_segments:TRUE,garbage_collection_threshold:0.6");
  REQUIRE(s.error);
  CHECK(s.error->corrected == "max_split_size_mb:512,expandable_segments:True,garbage_collection_threshold:0.6");
}

TEST_SUITE_END();
