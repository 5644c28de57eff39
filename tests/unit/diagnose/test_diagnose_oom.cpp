// PyTorch OOM messages of every format, parsed for their numbers, and the
// fragmentation / capacity / other-process rule (src/diagnose/oom_message.hpp;
// the formats are pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp's).
#include "diagnose/diagnose.hpp"
#include "diagnose/oom_message.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace lg::diagnose;

namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;
constexpr double k_mib = 1024.0 * 1024.0;

OomNumbers parsed(const std::string& text)
{
  const auto numbers = parse_oom_message(collapse_whitespace(text));
  REQUIRE(numbers.has_value());
  return *numbers;
}

} // namespace

TEST_SUITE_BEGIN("diagnose");

TEST_CASE("oom: sizes as PyTorch's format_size prints them")
{
  CHECK(parse_size("512 bytes") == doctest::Approx(512));
  CHECK(parse_size("1.50 KiB") == doctest::Approx(1536));
  CHECK(parse_size("2.00 GiB") == doctest::Approx(2 * k_gib));
  CHECK_FALSE(parse_size("2.00 GB").has_value());
  CHECK_FALSE(parse_size("GiB").has_value());
}

TEST_CASE("oom: >= 2.1 format with this process, other processes and private pools")
{
  const OomNumbers n = parsed(
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.10 "
    "GiB of which 1.21 GiB is free. Including non-PyTorch memory, this process has 60.00 GiB memory in use. "
    "Process 4242 has 10.00 GiB memory in use. Of the allocated memory 50.00 GiB is allocated by PyTorch, with "
    "1.00 GiB allocated in private pools (e.g., CUDA Graphs), and 8.00 GiB is reserved by PyTorch but "
    "unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.");
  CHECK(n.format == OomFormat::total_capacity_of);
  CHECK(n.device == 3);
  CHECK(n.request_bytes == doctest::Approx(2 * k_gib));
  CHECK(n.total_bytes == doctest::Approx(79.10 * k_gib));
  CHECK(n.free_bytes == doctest::Approx(1.21 * k_gib));
  CHECK(n.allocated_bytes == doctest::Approx(50 * k_gib));
  CHECK(n.reserved_unallocated_bytes == doctest::Approx(8 * k_gib));
  REQUIRE(n.this_process_bytes.has_value());
  CHECK(*n.this_process_bytes == doctest::Approx(60 * k_gib));
  REQUIRE(n.processes.size() == 1);
  CHECK(n.processes[0].first == 4242);
  REQUIRE(n.private_pool_bytes.has_value());
  CHECK_FALSE(n.allowed_bytes.has_value());
}

TEST_CASE("oom: 2.1's 'capacty' typo, no NVML clause, and a message wrapped over lines")
{
  const std::string wrapped =
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 172.00 MiB. GPU 0 has a total capacty "
    "of 79.15 GiB of which 161.62 MiB is free. Including non-PyTorch memory, this process has 78.98 GiB memory in \n"
    "use. Of the allocated memory 75.25 GiB is allocated by PyTorch, and 2.84 GiB is reserved by PyTorch but "
    "unallocated.";
  const OomNumbers n = parsed(wrapped);
  CHECK(n.request_bytes == doctest::Approx(172 * k_mib));
  CHECK(n.reserved_unallocated_bytes == doctest::Approx(2.84 * k_gib));
  const OomNumbers no_nvml = parsed(
    "CUDA out of memory. Tried to allocate 1.70 GiB. GPU 0 has a total capacty of 6.00 GiB of which 0 bytes is "
    "free. Of the allocated memory 2.93 GiB is allocated by PyTorch, and 2.30 GiB is reserved by PyTorch but "
    "unallocated.");
  CHECK_FALSE(no_nvml.this_process_bytes.has_value());
  CHECK(classify_oom(no_nvml).category == "cuda_oom_fragmentation");
}

TEST_CASE("oom: 1.4-2.0 format: reserved-unallocated is reserved minus allocated; 'allowed' is the cap")
{
  const OomNumbers n = parsed(
    "RuntimeError: CUDA out of memory. Tried to allocate 296.00 MiB (GPU 0; 10.76 GiB total capacity; 6.34 GiB "
    "already allocated; 206.56 MiB free; 9.41 GiB reserved in total by PyTorch) If reserved memory is >> "
    "allocated memory try setting max_split_size_mb to avoid fragmentation.");
  CHECK(n.format == OomFormat::reserved_in_total);
  CHECK(n.reserved_unallocated_bytes == doctest::Approx(3.07 * k_gib));
  CHECK(classify_oom(n).category == "cuda_oom_fragmentation");
  const OomNumbers allowed = parsed(
    "CUDA out of memory. Tried to allocate 20.00 GiB (GPU 0; 79.00 GiB total capacity; 10.00 GiB already "
    "allocated; 60.00 GiB free; 16.00 GiB allowed; 12.00 GiB reserved in total by PyTorch)");
  REQUIRE(allowed.allowed_bytes.has_value());
  CHECK(classify_oom(allowed).category == "cuda_oom_capacity");  // 20 GiB > 16 GiB allowed
}

TEST_CASE("oom: <= 1.3 format: 'cached' is already reserved-unallocated")
{
  const OomNumbers n = parsed(
    "RuntimeError: CUDA out of memory. Tried to allocate 294.00 MiB (GPU 0; 7.79 GiB total capacity; 6.27 GiB "
    "already allocated; 52.44 MiB free; 617.73 MiB cached)");
  CHECK(n.format == OomFormat::thc_cached);
  CHECK(n.reserved_unallocated_bytes == doctest::Approx(617.73 * k_mib));
  CHECK(classify_oom(n).category == "cuda_oom_fragmentation");
}

TEST_CASE("oom: the rule: request larger than the GPU, other process, fit-if-packed, small share")
{
  OomNumbers n;
  n.total_bytes = 31.47 * k_gib;
  n.request_bytes = 22.78 * k_gib;
  n.allocated_bytes = 9.08 * k_gib;
  n.reserved_unallocated_bytes = 9.35 * k_gib;  // 30 % of the GPU, yet it would not fit packed
  n.free_bytes = n.total_bytes - n.allocated_bytes - n.reserved_unallocated_bytes - 0.31 * k_gib;
  CHECK(classify_oom(n).category == "cuda_oom_capacity");
  n.request_bytes = 40 * k_gib;
  CHECK(classify_oom(n).category == "cuda_oom_capacity");
  OomNumbers other;  // 22.5 of 23.7 GiB held outside this process's allocator
  other.total_bytes = 23.7 * k_gib;
  other.request_bytes = 12 * k_mib;
  other.allocated_bytes = 1.1 * k_gib;
  other.reserved_unallocated_bytes = 0.08 * k_gib;
  other.free_bytes = 0.01 * k_gib;
  CHECK(classify_oom(other).category == "cuda_oom_other_process");
  OomNumbers tiny;  // 195 MiB stranded covers 22 MiB, but 97 % of the GPU is live
  tiny.total_bytes = 23.65 * k_gib;
  tiny.request_bytes = 22 * k_mib;
  tiny.allocated_bytes = 22.9 * k_gib;
  tiny.reserved_unallocated_bytes = 195 * k_mib;
  tiny.free_bytes = 11 * k_mib;
  const OomVerdict verdict = classify_oom(tiny);
  CHECK(verdict.category == "cuda_oom_capacity");
  CHECK_FALSE(verdict.ambiguous);
}

TEST_CASE("oom: expandable_segments already on turns fragmentation into capacity")
{
  const Matcher matcher(default_catalogue());
  const std::string oom =
    "RuntimeError: CUDA out of memory. Tried to allocate 296.00 MiB (GPU 0; 10.76 GiB total capacity; 6.34 GiB "
    "already allocated; 206.56 MiB free; 9.41 GiB reserved in total by PyTorch)\n";
  const std::string with_env = "+ export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n" + oom;
  const Diagnosis from_log = diagnose({{"a.out", with_env}}, matcher);
  CHECK(from_log.category == "cuda_oom_capacity");
  // No job: no model-side step is named as the change (the job's ladder
  // decides), and the fix does not start with core_attn recompute, which
  // saves nothing with fused attention (rules: recompute.core_attn_with_fused_attention).
  CHECK(from_log.suggested_change.empty());
  CHECK(from_log.fix.find("assumes fused/flash attention") != std::string::npos);
  CHECK(from_log.fix.find("In order: recompute the MLP") != std::string::npos);
  REQUIRE(from_log.oom.has_value());
  Context context;
  context.expandable_segments_set = true;
  CHECK(diagnose({{"a.out", oom}}, matcher, context).category == "cuda_oom_capacity");
  const Diagnosis plain = diagnose({{"a.out", oom}}, matcher);
  CHECK(plain.category == "cuda_oom_fragmentation");
  const std::string unsupported =
    "[W CUDAAllocatorConfig.h:28] Warning: expandable_segments not supported on this platform\n" + oom;
  const Diagnosis ignored = diagnose({{"a.out", unsupported}}, matcher);
  CHECK(ignored.category == "cuda_oom_fragmentation");
  CHECK(ignored.suggested_change.empty());
  CHECK(ignored.fix.find("max_split_size_mb") != std::string::npos);
}

TEST_CASE("oom: a [rankN]: prefix on continuation lines does not hide the numbers")
{
  const Matcher matcher(default_catalogue());
  const std::string text =
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity\n"
    "[rank0]: of 23.43 GiB of which 225.12 MiB is free. Including non-PyTorch memory, this process has 23.20 GiB\n"
    "[rank0]: memory in use. Of the allocated memory 22.41 GiB is allocated by PyTorch, and 205.90 MiB is\n"
    "[rank0]: reserved by PyTorch but unallocated.\n";
  const Diagnosis d = diagnose({{"r0.out", text}}, matcher);
  CHECK(d.category == "cuda_oom_capacity");
  REQUIRE(d.oom.has_value());
  CHECK(d.oom->allocated_bytes == doctest::Approx(22.41 * k_gib));
}

TEST_SUITE_END();
