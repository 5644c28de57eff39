// The numbers of a PyTorch CUDA caching-allocator OOM message, in every
// format PyTorch has printed (pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp,
// THC's THCCachingAllocator before 1.4), and the rule that tells fragmentation
// from capacity from another process: PyTorch raises the OOM only after
// releasing every unsplit cached block, so memory "reserved but unallocated"
// then is stranded in partly used segments.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lg::diagnose {

enum class OomFormat { thc_cached, reserved_in_total, total_capacity_of };

struct OomNumbers
{
  OomFormat format = OomFormat::total_capacity_of;
  int device = 0;
  double request_bytes = 0;    // "Tried to allocate X"
  double total_bytes = 0;      // total capacity
  double free_bytes = 0;       // free on the device
  double allocated_bytes = 0;  // live tensors ("allocated by PyTorch" / "already allocated")
  double reserved_unallocated_bytes = 0;  // cached but unused, stranded in split blocks
  std::optional<double> allowed_bytes;    // set_per_process_memory_fraction
  std::optional<double> private_pool_bytes;
  std::optional<double> this_process_bytes;  // "Including non-PyTorch memory, this process has X"
  std::vector<std::pair<long, double>> processes;  // "Process <pid> has X memory in use"

  // Return the allowed bytes when a fraction is set, else the total.
  double capacity_bytes() const;
  // Return the device memory not held by this process's PyTorch allocator:
  // CUDA context, NCCL/cuBLAS workspaces, other processes.
  double outside_bytes() const;
};

struct OomVerdict
{
  std::string category;  // cuda_oom_fragmentation | cuda_oom_capacity | cuda_oom_other_process
  bool ambiguous = false;  // reserved-unallocated covers the request but is only 2-8 % of the GPU
  std::string reason;      // the numbers that decided, one sentence
};

// Return the size in bytes of a PyTorch format_size() text ("2.00 GiB",
// "512 bytes"), or nullopt.
std::optional<double> parse_size(std::string_view text);

// Collapse every run of whitespace in `text` to one space (OOM messages are
// often wrapped across lines).
std::string collapse_whitespace(std::string_view text);

// Parse the OOM message somewhere in `text` (whitespace already collapsed).
// Return nullopt when no format's numbers are all there.
std::optional<OomNumbers> parse_oom_message(std::string_view text);

// Apply the §1.2 rule to `numbers`.
OomVerdict classify_oom(const OomNumbers& numbers);

} // namespace lg::diagnose
