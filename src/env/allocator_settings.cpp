// PYTORCH_CUDA_ALLOC_CONF checked key by key against PyTorch's parser
// (allocator_settings.hpp names the upstream files). Each key's check is a
// row: how its value is read and what PyTorch says when it refuses it.
#include "env/allocator_settings.hpp"

#include "env/allocator_conf.hpp"
#include "env/environment.hpp"
#include "util/edit_distance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <functional>

namespace lg::env {

namespace {

using Tokens = std::vector<std::string>;

constexpr std::uint64_t k_min_split_size_mb = 20;  // kLargeBuffer (20 MiB) / 1 MiB
constexpr std::uint64_t k_max_register_threads = 128;  // pinned_max_register_threads()

// Raised inside the parser; becomes AllocatorSettings::error.
struct Reject
{
  std::string message;
  std::string message_before_2_8;
  std::string fix;
};

bool is_power_of_two(std::uint64_t v)
{
  return v != 0 && (v & (v - 1)) == 0;
}

// std::stoull as PyTorch calls it: leading digits (an optional sign, a
// negative value wraps around), trailing characters ignored; no digits at all
// throws std::invalid_argument, whose message is the function's name.
std::uint64_t to_size(const std::string& token, const std::string& key)
{
  std::size_t start = (token.starts_with('-') || token.starts_with('+')) ? 1 : 0;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(token.data() + start, token.data() + token.size(), value);
  if (ec != std::errc() || end == token.data() + start) {
    throw Reject{"stoull", "stoi",
                 fmt::format("give {} a whole number (PyTorch reads \"{}\" with std::stoull and stops)",
                             key, token)};
  }
  return token.starts_with('-') ? (~value + 1) : value;
}

double to_double(const std::string& token, const std::string& key)
{
  char* end = nullptr;
  const double value = std::strtod(token.c_str(), &end);
  if (end == token.c_str()) {
    throw Reject{"stod", "stod",
                 fmt::format("give {} a number (PyTorch reads \"{}\" with std::stod and stops)", key, token)};
  }
  return value;
}

std::string lower(std::string_view text)
{
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string unknown_key_fix(const std::string& key)
{
  const auto& known = known_alloc_keys();
  if (const auto near = nearest(key, known)) {
    return fmt::format("did you mean \"{}\"? (keys are case-sensitive)", *near);
  }
  return "remove it, or check its spelling against the allocator keys in the PyTorch CUDA notes "
         "(https://pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)";
}

// The parse state: tokens, position, what was set, and the corrected text
// (every part PyTorch accepts, the offending one mended or left out).
class Parser
{
public:
  explicit Parser(Tokens tokens) : m_tokens(std::move(tokens)) {}

  AllocatorSettings run();

private:
  const std::string& at(std::size_t i, const std::string& what) const;
  void expect(std::size_t i, const char* separator, const std::string& key) const;
  std::size_t parse_key(std::size_t i);
  std::size_t parse_bool(std::size_t i, const std::string& key, bool* target);
  std::size_t parse_roundup(std::size_t i, const std::string& key);
  std::size_t skip_value(std::size_t i) const;

  Tokens m_tokens;
  AllocatorSettings m_settings;
  std::vector<std::string> m_corrected;  // "key:value" parts
  std::string m_mended;                  // the offending part mended, if it can be
};

const std::string& Parser::at(std::size_t i, const std::string& what) const
{
  if (i >= m_tokens.size()) {
    throw Reject{"Index out of bounds in ConfigTokenizer", fmt::format("Error, expecting {} value", what),
                 fmt::format("give {} a value: {}:VALUE", what, what)};
  }
  return m_tokens[i];
}

void Parser::expect(std::size_t i, const char* separator, const std::string& key) const
{
  if (i >= m_tokens.size() || m_tokens[i] != separator) {
    // 2.8+ checks the index only; a missing ':' then misreads the next
    // token, so both versions refuse the string, with different words.
    throw Reject{i >= m_tokens.size() ? std::string("Index out of bounds in ConfigTokenizer")
                                      : fmt::format("Error parsing CachingAllocator settings, expected {}", separator),
                 fmt::format("Error parsing CachingAllocator settings, expected {}", separator),
                 std::string(separator) == ":"
                   ? fmt::format("write {} as key:value", key.empty() ? "each setting" : key)
                   : std::string("separate the key:value settings with commas")};
  }
}

std::size_t Parser::parse_bool(std::size_t i, const std::string& key, bool* target)
{
  const std::string& value = at(i, key);
  if (value != "True" && value != "False") {
    const std::string l = lower(value);
    const bool near_true = l == "true" || l == "1" || l == "yes" || l == "on";
    const bool near_false = l == "false" || l == "0" || l == "no" || l == "off";
    const std::string spelled = near_true ? "True" : near_false ? "False" : "True or False";
    if (near_true || near_false) {
      m_mended = key + ":" + spelled;
    }
    // The 2.4-2.7 message names the CUDA key even for its hip alias.
    std::string named = key;
    if (key == "release_lock_on_hipmalloc") {
      named = "release_lock_on_cudamalloc";
    } else if (key == "pinned_use_hip_host_register") {
      named = "pinned_use_cuda_host_register";
    }
    throw Reject{fmt::format("Expected 'True' or 'False' at index {} in ConfigTokenizer but got '{}'", i, value),
                 fmt::format("Expected a single True/False argument for {}", named),
                 fmt::format("write {}:{} (PyTorch accepts exactly True or False, capitalised)", key, spelled)};
  }
  if (target != nullptr) {
    *target = value == "True";
  }
  return i;
}

std::size_t Parser::parse_roundup(std::size_t i, const std::string& key)
{
  const Reject not_power{"For roundups, the divisions has to be power of 2 ",
                         "For roundups, the divisons has to be power of 2 ",
                         "use a power of two for roundup_power2_divisions (1, 2, 4, 8, …)"};
  if (at(i, key) != "[") {
    if (!is_power_of_two(to_size(m_tokens[i], key))) {
      throw not_power;
    }
    return i;
  }
  while (++i < m_tokens.size() && m_tokens[i] != "]") {
    const std::string& interval = m_tokens[i];
    expect(++i, ":", key);
    const std::uint64_t divisions = to_size(at(++i, key), key);
    if (divisions != 0 && !is_power_of_two(divisions)) {
      throw Reject{"For roundups, the divisions has to be power of 2 or 0 to disable roundup ",
                   "For roundups, the divisons has to be power of 2 or 0 to disable roundup ",
                   "use 0 or a power of two as each interval's number of divisions"};
    }
    if (interval != ">" && !is_power_of_two(to_size(interval, key))) {
      throw Reject{"For roundups, the intervals have to be power of 2 ",
                   "For roundups, the intervals have to be power of 2 ",
                   "give each interval as a power of two in MB (64, 256, 1024, …) or >"};
    }
    if (i + 1 < m_tokens.size() && m_tokens[i + 1] != "]") {
      expect(++i, ",", key);
    }
  }
  if (i >= m_tokens.size()) {
    throw Reject{"Expected closing bracket ']' in ConfigTokenizer but reached end of config",
                 "Error parsing roundup_power2_divisions value",
                 "close the list: roundup_power2_divisions:[64:8,256:4,>:1]"};
  }
  return i;
}

std::size_t Parser::skip_value(std::size_t i) const
{
  if (i < m_tokens.size() && m_tokens[i] == "[") {
    while (i < m_tokens.size() && m_tokens[i] != "]") {
      ++i;
    }
  }
  return i;
}

std::size_t Parser::parse_key(std::size_t i)
{
  const std::string key = m_tokens[i];
  using Check = std::function<std::size_t(std::size_t)>;
  auto size_at_least = [&](std::uint64_t minimum, const char* what) {
    return Check([&, minimum, what](std::size_t j) {
      if (to_size(at(j, key), key) < minimum) {
        m_mended = fmt::format("{}:{}", key, minimum);
        throw Reject{fmt::format("CachingAllocator option {} too small, must be >= {}", key, minimum),
                     fmt::format("CachingAllocator option {} too small, must be >= {}", key, minimum),
                     fmt::format("set {} to at least {} ({})", key, minimum, what)};
      }
      return j;
    });
  };
  auto fraction = [&](bool closed, const char* message, const char* range) {
    return Check([&, closed, message, range](std::size_t j) {
      const double v = to_double(at(j, key), key);
      const bool ok = closed ? (v >= 0.0 && v <= 1.0) : (v > 0.0 && v < 1.0);
      if (!ok) {
        throw Reject{message, message, fmt::format("set {} to a fraction in {}", key, range)};
      }
      return j;
    });
  };
  Check check;
  if (key == "expandable_segments") {
    check = [&](std::size_t j) { return parse_bool(j, key, &m_settings.expandable_segments); };
  } else if (key == "release_lock_on_cudamalloc" || key == "release_lock_on_hipmalloc"
             || key == "pinned_use_cuda_host_register" || key == "pinned_use_hip_host_register"
             || key == "pinned_use_background_threads" || key == "graph_capture_record_stream_reuse") {
    check = [&](std::size_t j) { return parse_bool(j, key, nullptr); };
  } else if (key == "max_split_size_mb" || key == "max_non_split_rounding_mb") {
    check = size_at_least(k_min_split_size_mb, "the 20 MiB large-block size");
  } else if (key == "garbage_collection_threshold") {
    check = fraction(false, "garbage_collect_threshold is invalid, set it in (0.0, 1.0)", "(0.0, 1.0)");
  } else if (key == "per_process_memory_fraction") {
    check = fraction(true, "per_process_memory_fraction is invalid, set it in [0.0, 1.0]", "[0.0, 1.0]");
  } else if (key == "roundup_power2_divisions") {
    check = [&](std::size_t j) { return parse_roundup(j, key); };
  } else if (key == "pinned_num_register_threads") {
    check = [&](std::size_t j) {
      const std::uint64_t v = to_size(at(j, key), key);
      if (!is_power_of_two(v)) {
        throw Reject{fmt::format("Number of register threads has to be power of 2, got {}", v),
                     "Number of register threads has to be power of 2 ",
                     "use a power of two up to 128 for pinned_num_register_threads"};
      }
      if (v > k_max_register_threads) {
        m_mended = fmt::format("{}:{}", key, k_max_register_threads);
        throw Reject{fmt::format("Number of register threads should be less than or equal to {}, got {}",
                                 k_max_register_threads, v),
                     fmt::format("Number of register threads should be less than or equal to {}",
                                 k_max_register_threads),
                     "use at most 128 pinned_num_register_threads"};
      }
      return j;
    };
  } else if (key == "pinned_reserve_segment_size_mb") {
    check = [&](std::size_t j) {
      if (to_size(at(j, key), key) == 0) {
        throw Reject{"Pinned reserve segment size has to be greater than 0",
                     "Pinned reserve segment size has to be greater than 0",
                     "set pinned_reserve_segment_size_mb to a positive size in MB"};
      }
      return j;
    };
  } else if (key == "backend") {
    check = [&](std::size_t j) {
      const std::string& value = at(j, key);
      if (value != "native" && value != "cudaMallocAsync") {
        if (lower(value) == "native" || lower(value) == "cudamallocasync") {
          m_mended = "backend:" + std::string(lower(value) == "native" ? "native" : "cudaMallocAsync");
        }
        throw Reject{"Unknown allocator backend, options are native and cudaMallocAsync",
                     "Unknown allocator backend, options are native and cudaMallocAsync",
                     "write backend:native or backend:cudaMallocAsync"};
      }
      m_settings.cuda_malloc_async = value == "cudaMallocAsync";
      return j;
    };
  } else {
    throw Reject{fmt::format("Unrecognized key '{}' in CUDA allocator config.", key),
                 fmt::format("Unrecognized CachingAllocator option: {}", key),
                 unknown_key_fix(key)};
  }
  expect(i + 1, ":", key);
  const std::size_t value_start = i + 2;
  const std::size_t last = check(value_start);
  std::string part = key + ":";
  for (std::size_t t = value_start; t <= last && t < m_tokens.size(); ++t) {
    part += m_tokens[t];
  }
  m_corrected.push_back(part);
  const bool native_only = key == "max_split_size_mb" || key == "max_non_split_rounding_mb"
                           || key == "garbage_collection_threshold" || key == "roundup_power2_divisions"
                           || key == "expandable_segments" || key == "release_lock_on_cudamalloc"
                           || key == "release_lock_on_hipmalloc";
  if (native_only) {
    m_settings.ignored_by_async.push_back(key);
  }
  return last;
}

AllocatorSettings Parser::run()
{
  for (std::size_t i = 0; i < m_tokens.size(); ++i) {
    const std::size_t key_at = i;
    try {
      if (m_tokens[i] == "," || m_tokens[i] == ":" || m_tokens[i] == "[" || m_tokens[i] == "]") {
        // A separator where a key belongs (",," or a leading ':'): PyTorch
        // takes it for a key it does not know.
        throw Reject{fmt::format("Unrecognized key '{}' in CUDA allocator config.", m_tokens[i]),
                     fmt::format("Unrecognized CachingAllocator option: {}", m_tokens[i]),
                     "remove the stray separator: key:value settings separated by single commas"};
      }
      i = parse_key(i);
      if (i + 1 < m_tokens.size()) {
        expect(++i, ",", m_tokens[key_at]);
      }
    } catch (const Reject& reject) {
      const std::string key = m_tokens[key_at];
      AllocatorError error{key, reject.message, reject.message_before_2_8, reject.fix, ""};
      if (!m_mended.empty()) {
        m_corrected.push_back(m_mended);
      }
      // Keep the parts after the offending one that PyTorch would have read.
      std::size_t next = skip_value(std::min(key_at + 2, m_tokens.size()));
      while (next < m_tokens.size() && m_tokens[next] != ",") {
        ++next;
      }
      std::string rest;
      for (std::size_t t = next + 1; t < m_tokens.size(); ++t) {
        rest += m_tokens[t];
      }
      const AllocatorSettings tail = rest.empty() ? AllocatorSettings{} : parse_allocator_settings(rest);
      std::string corrected;
      for (const auto& part : m_corrected) {
        corrected += (corrected.empty() ? "" : ",") + part;
      }
      if (tail.valid() && !rest.empty()) {
        corrected += (corrected.empty() ? "" : ",") + rest;
      }
      error.corrected = corrected;
      AllocatorSettings settings = parse_allocator_settings(corrected);
      settings.error = std::move(error);
      return settings;
    }
  }
  if (!m_settings.cuda_malloc_async) {
    m_settings.ignored_by_async.clear();
  }
  return m_settings;
}

} // namespace

std::vector<std::string> allocator_tokens(std::string_view text)
{
  std::vector<std::string> tokens;
  std::string buffer;
  for (char ch : text) {
    if (ch == ',' || ch == ':' || ch == '[' || ch == ']') {
      if (!buffer.empty()) {
        tokens.push_back(std::move(buffer));
        buffer.clear();
      }
      tokens.emplace_back(1, ch);
    } else if (std::isspace(static_cast<unsigned char>(ch)) == 0) {
      buffer += ch;
    }
  }
  if (!buffer.empty()) {
    tokens.push_back(std::move(buffer));
  }
  return tokens;
}

AllocatorSettings parse_allocator_settings(std::string_view text)
{
  return Parser(allocator_tokens(text)).run();
}

AllocatorSettings allocator_settings_of(const Environment& environment)
{
  const Variable* v = environment.find(k_alloc_conf);
  if (v == nullptr || v->action == Action::unset) {
    return {};
  }
  return parse_allocator_settings(v->value);
}

} // namespace lg::env
