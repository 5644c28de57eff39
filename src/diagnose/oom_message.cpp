// Parsing PyTorch OOM messages (pytorch/pytorch
// c10/cuda/CUDACachingAllocator.cpp, DeviceCachingAllocator::malloc) with RE2
// (linear time on any input).
#include "diagnose/oom_message.hpp"

#include "util/bytes.hpp"

#include <fmt/core.h>
#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace lg::diagnose {

namespace {

#define LG_SZ "([0-9]+(?:\\.[0-9]+)? (?:bytes|KiB|MiB|GiB|TiB|PiB))"
#define LG_SZ_NC "(?:[0-9]+(?:\\.[0-9]+)? (?:bytes|KiB|MiB|GiB|TiB|PiB))"

// >= 2.1: groups req, dev, total, free, procs, allowed, alloc, private, ru.
const char* const k_total_capacity_of =
  "out of memory\\. Tried to allocate " LG_SZ "\\. GPU ([0-9]+) has a total capac(?:i)?ty of " LG_SZ
  " of which " LG_SZ " is free\\. ((?:(?:Process [0-9]+|Including non-PyTorch memory, this process) has "
  LG_SZ_NC " memory in use\\. )*)(?:" LG_SZ " allowed; )?Of the allocated memory " LG_SZ
  " is allocated by PyTorch, (?:with " LG_SZ " allocated in private pools \\(e\\.g\\., CUDA Graphs\\), )?and "
  LG_SZ " is reserved by PyTorch but unallocated\\.";

// 1.4 .. 2.0: groups req, dev, total, alloc, free, allowed, reserved.
const char* const k_reserved_in_total =
  "out of memory\\. Tried to allocate " LG_SZ " \\(GPU ([0-9]+); " LG_SZ " total capacity; " LG_SZ
  " already allocated; " LG_SZ " free; (?:" LG_SZ " allowed; )?" LG_SZ " reserved in total by PyTorch\\)";

// <= 1.3: groups req, dev, total, alloc, free, cached (= reserved - allocated).
const char* const k_thc_cached =
  "out of memory\\. Tried to allocate " LG_SZ " \\(GPU ([0-9]+); " LG_SZ " total capacity; " LG_SZ
  " already allocated; " LG_SZ " free; " LG_SZ " cached\\)";

const char* const k_process_clause =
  "(?:Process ([0-9]+)|Including non-PyTorch memory, this process) has " LG_SZ " memory in use\\. ";

#undef LG_SZ
#undef LG_SZ_NC

constexpr double k_four_gib = 4.0 * k_gib;

template<std::size_t N>
bool match(const RE2& regex, std::string_view text, std::array<re2::StringPiece, N>& groups)
{
  return regex.Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::UNANCHORED,
                     groups.data(), static_cast<int>(N));
}

double size_of(const re2::StringPiece& piece)
{
  return parse_size(std::string_view(piece.data(), piece.size())).value_or(0.0);
}

std::optional<double> optional_size(const re2::StringPiece& piece)
{
  if (piece.data() == nullptr) {
    return std::nullopt;
  }
  return parse_size(std::string_view(piece.data(), piece.size()));
}

void parse_processes(std::string_view clauses, OomNumbers& numbers)
{
  static const RE2 clause(k_process_clause);
  re2::StringPiece rest(clauses.data(), clauses.size());
  std::string pid;
  std::string size;
  while (RE2::FindAndConsume(&rest, clause, &pid, &size)) {
    const double bytes = parse_size(size).value_or(0.0);
    if (pid.empty()) {
      numbers.this_process_bytes = bytes;
    } else {
      numbers.processes.emplace_back(std::stol(pid), bytes);
    }
  }
}

std::optional<OomNumbers> parse_total_capacity_of(std::string_view text)
{
  static const RE2 regex(k_total_capacity_of);
  std::array<re2::StringPiece, 10> g;
  if (!match(regex, text, g)) {
    return std::nullopt;
  }
  OomNumbers n;
  n.format = OomFormat::total_capacity_of;
  n.request_bytes = size_of(g[1]);
  n.device = std::atoi(std::string(g[2].data(), g[2].size()).c_str());
  n.total_bytes = size_of(g[3]);
  n.free_bytes = size_of(g[4]);
  parse_processes(std::string_view(g[5].data(), g[5].size()), n);
  n.allowed_bytes = optional_size(g[6]);
  n.allocated_bytes = size_of(g[7]);
  n.private_pool_bytes = optional_size(g[8]);
  n.reserved_unallocated_bytes = size_of(g[9]);
  return n;
}

std::optional<OomNumbers> parse_older(std::string_view text)
{
  static const RE2 reserved(k_reserved_in_total);
  static const RE2 cached(k_thc_cached);
  std::array<re2::StringPiece, 8> g;
  OomNumbers n;
  if (match(reserved, text, g)) {
    n.format = OomFormat::reserved_in_total;
    n.allowed_bytes = optional_size(g[6]);
    n.reserved_unallocated_bytes = std::max(0.0, size_of(g[7]) - size_of(g[4]));
  } else {
    std::array<re2::StringPiece, 7> h;
    if (!match(cached, text, h)) {
      return std::nullopt;
    }
    std::copy(h.begin(), h.end(), g.begin());
    n.format = OomFormat::thc_cached;
    n.reserved_unallocated_bytes = size_of(h[6]);
  }
  n.request_bytes = size_of(g[1]);
  n.device = std::atoi(std::string(g[2].data(), g[2].size()).c_str());
  n.total_bytes = size_of(g[3]);
  n.allocated_bytes = size_of(g[4]);
  n.free_bytes = size_of(g[5]);
  return n;
}

// Say why an OOM that is not a garbage size or another process is capacity.
std::string capacity_reason(const OomNumbers& n, double share)
{
  const double ru = n.reserved_unallocated_bytes;
  if (ru < n.request_bytes) {
    return fmt::format("live tensors hold {} of {}; only {} is reserved but unallocated, less than "
                       "the {} requested",
                       format_bytes(n.allocated_bytes), format_bytes(n.capacity_bytes()),
                       format_bytes(ru), format_bytes(n.request_bytes));
  }
  if (share < 0.05) {
    return fmt::format("{} reserved but unallocated is only {:.1f}% of the GPU; packing it would "
                       "not make room for the next allocations",
                       format_bytes(ru), 100.0 * share);
  }
  return fmt::format("even perfectly packed, {} allocated + {} requested exceeds the {} usable",
                     format_bytes(n.allocated_bytes), format_bytes(n.request_bytes),
                     format_bytes(n.capacity_bytes() - n.outside_bytes()));
}

} // namespace

double OomNumbers::capacity_bytes() const
{
  return allowed_bytes.value_or(total_bytes);
}

double OomNumbers::outside_bytes() const
{
  return std::max(0.0, total_bytes - free_bytes - allocated_bytes - reserved_unallocated_bytes);
}

std::optional<double> parse_size(std::string_view text)
{
  double value = 0;
  const auto* end = text.data() + text.size();
  const auto [rest, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || rest == end || *rest != ' ') {
    return std::nullopt;
  }
  const std::string_view unit(rest + 1, static_cast<std::size_t>(end - rest - 1));
  static const std::array<std::pair<std::string_view, double>, 6> units = {{
    {"bytes", 1.0}, {"KiB", 1024.0}, {"MiB", k_mib}, {"GiB", k_gib},
    {"TiB", k_gib * 1024.0}, {"PiB", k_gib * 1024.0 * 1024.0}}};
  for (const auto& [name, factor] : units) {
    if (unit == name) {
      return value * factor;
    }
  }
  return std::nullopt;
}

std::string collapse_whitespace(std::string_view text)
{
  std::string result;
  result.reserve(text.size());
  bool in_space = false;
  for (const char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      in_space = true;
      continue;
    }
    if (in_space && !result.empty()) {
      result.push_back(' ');
    }
    in_space = false;
    result.push_back(c);
  }
  return result;
}

std::optional<OomNumbers> parse_oom_message(std::string_view text)
{
  if (auto numbers = parse_total_capacity_of(text)) {
    return numbers;
  }
  return parse_older(text);
}

OomVerdict classify_oom(const OomNumbers& n)
{
  const double cap = n.capacity_bytes();
  const double outside = n.outside_bytes();
  const double ru = n.reserved_unallocated_bytes;
  const double share = n.total_bytes > 0 ? ru / n.total_bytes : 0.0;
  OomVerdict verdict;
  verdict.ambiguous = ru >= n.request_bytes && share >= 0.02 && share <= 0.08;
  if (n.request_bytes > cap) {
    verdict.category = "cuda_oom_capacity";
    verdict.ambiguous = false;
    verdict.reason = fmt::format("the request of {} is larger than the GPU's {}",
                                 format_bytes(n.request_bytes), format_bytes(cap));
  } else if (outside > std::max(0.25 * n.total_bytes, k_four_gib)) {
    verdict.category = "cuda_oom_other_process";
    verdict.ambiguous = false;
    verdict.reason = fmt::format("{} of the GPU's {} is held outside this process's PyTorch allocator",
                                 format_bytes(outside), format_bytes(n.total_bytes));
  } else if (ru >= n.request_bytes && share >= 0.05 &&
             n.allocated_bytes + n.request_bytes <= cap - outside) {
    verdict.category = "cuda_oom_fragmentation";
    verdict.reason = fmt::format(
      "{} is reserved but unallocated ({:.1f}% of the GPU), more than the {} requested, and the "
      "job would fit if memory were packed",
      format_bytes(ru), 100.0 * share, format_bytes(n.request_bytes));
  } else {
    verdict.category = "cuda_oom_capacity";
    verdict.reason = capacity_reason(n, share);
  }
  return verdict;
}

} // namespace lg::diagnose
