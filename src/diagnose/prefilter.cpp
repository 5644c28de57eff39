#include "diagnose/prefilter.hpp"

#include <re2/filtered_re2.h>
#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>
#include <optional>
#include <string_view>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace lg::diagnose {

namespace {

constexpr int k_min_atom = 3;   // FilteredRE2 drops shorter factors (they match everywhere)
constexpr int k_table_bits = 18;  // 2^18 bits: 32 KiB, stays in L1/L2
constexpr std::uint32_t k_bucket_bits = 12;  // entries of the long tier, by the low bits of their slot
constexpr std::size_t k_window = 4;  // bytes of a long-tier window

// Same options as the matcher: one byte, one character.
RE2::Options latin1()
{
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  return options;
}

// ASCII letters to lower case (four bytes at once); other bytes merely
// share a key with another byte, which the confirmation tells apart.
std::uint32_t window_key(const char* at)
{
  std::uint32_t key = 0;
  std::memcpy(&key, at, sizeof key);
  return key | 0x20202020u;
}

std::uint32_t slot(std::uint32_t key)
{
  return (key * 0x9E3779B1u) >> (32 - k_table_bits);
}

// How common a (lower-case) byte is in log text, roughly: spaces, the
// frequent letters of English, digits and separators are everywhere;
// rare letters and most punctuation are not. Only used to choose which
// windows of an atom to look for, never to decide a match.
int commonness(unsigned char c)
{
  static constexpr std::string_view k_ranked = "etaoinsrhldcumpfgbywvkxqjz";  // English letter frequency
  if (c == ' ') {
    return 30;
  }
  if (c >= '0' && c <= '9') {
    return 16;
  }
  if (const auto at = k_ranked.find(static_cast<char>(c)); at != std::string_view::npos) {
    return 26 - static_cast<int>(at);
  }
  if (std::string_view(":.|,-_/=()").find(static_cast<char>(c)) != std::string_view::npos) {
    return 12;
  }
  return 1;
}

int commonness(std::string_view text)
{
  int sum = 0;
  for (const char c : text) {
    sum += commonness(static_cast<unsigned char>(c));
  }
  return sum;
}

// Return the offset of the run of `count` windows of `width` bytes in
// `atom` whose bytes are least common.
std::size_t rarest_run(const std::string& atom, std::size_t width, std::size_t count)
{
  std::size_t best = 0;
  int best_score = 0;
  for (std::size_t offset = 0; offset + count - 1 + width <= atom.size(); ++offset) {
    const int score = commonness(std::string_view(atom).substr(offset, count - 1 + width));
    if (offset == 0 || score < best_score) {
      best = offset;
      best_score = score;
    }
  }
  return best;
}

bool usable(const std::string& atom)
{
  return atom.size() >= static_cast<std::size_t>(k_min_atom)
         && std::none_of(atom.begin(), atom.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
}

// Patterns are matched one line at a time, so an atom holding a line end
// (`\s` expanded to "\n" in `(^|\s)OUT_OF_MEMORY\s+`) is never in a line:
// it is absent from every line, not a reason to scan for the pattern
// without a prefilter.
bool spans_lines(const std::string& atom)
{
  return atom.find('\n') != std::string::npos;
}

// Return atoms at least one of which every match of `pattern` contains, or
// nullopt when there are none to rely on.
std::optional<std::vector<std::string>> required_atoms(const std::string& pattern)
{
  re2::FilteredRE2 filter(k_min_atom);
  int id = 0;
  if (filter.Add(pattern, latin1(), &id) != RE2::NoError) {
    return std::nullopt;
  }
  std::vector<std::string> atoms;
  filter.Compile(&atoms);
  std::vector<int> passing;
  filter.AllPotentials({}, &passing);
  if (atoms.empty() || !passing.empty()) {
    return std::nullopt;  // matches with no atom at all
  }
  // Drop atoms while the rest still stops every match, shortest first.
  std::vector<std::size_t> order(atoms.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return atoms[a].size() < atoms[b].size(); });
  std::vector<bool> kept(atoms.size(), true);  // kept: may be relied on as absent
  for (const std::size_t candidate : order) {
    if (spans_lines(atoms[candidate])) {
      continue;  // absent from every line: always safe to rely on
    }
    kept[candidate] = false;
    std::vector<int> present;  // every atom not kept: could be in the text
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      if (!kept[i]) {
        present.push_back(static_cast<int>(i));
      }
    }
    passing.clear();
    filter.AllPotentials(present, &passing);
    kept[candidate] = !passing.empty();
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < atoms.size(); ++i) {
    if (kept[i] && !spans_lines(atoms[i])) {
      if (!usable(atoms[i])) {
        return std::nullopt;
      }
      out.push_back(atoms[i]);
    }
  }
  if (out.empty()) {
    return std::nullopt;  // only line-spanning atoms: leave it to the DFA
  }
  return out;
}

} // namespace

Prefilter::Prefilter(const std::vector<std::string>& patterns)
  : m_covered(patterns.size(), false)
{
  std::vector<std::string> atoms;
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    if (auto required = required_atoms(patterns[i])) {
      m_covered[i] = true;
      for (auto& atom : *required) {
        if (std::find(atoms.begin(), atoms.end(), atom) == atoms.end()) {
          atoms.push_back(std::move(atom));
        }
      }
    }
  }
  // A line holding an atom that contains another atom holds that one too.
  for (const auto& atom : atoms) {
    const bool holds_another = std::any_of(atoms.begin(), atoms.end(), [&](const std::string& other) {
      return other.size() < atom.size() && atom.find(other) != std::string::npos;
    });
    if (!holds_another) {
      m_atoms.push_back(atom);
    }
  }
  std::size_t shortest_long = 0;
  for (const auto& atom : m_atoms) {
    if (atom.size() >= k_long_atom && (shortest_long == 0 || atom.size() < shortest_long)) {
      shortest_long = atom.size();
    }
  }
  // An atom of length L holds the windows starting at 0..L-4; sampling every
  // L-3 bytes lands in each occurrence at least once.
  m_stride = shortest_long == 0 ? 0 : shortest_long - k_window + 1;
  if (m_stride > 0) {
    m_bits.assign(std::size_t{1} << (k_table_bits - 6), 0);
  }
  std::vector<std::pair<std::uint32_t, Entry>> entries;  // (bucket, entry)
  for (std::size_t i = 0; i < m_atoms.size(); ++i) {
    const std::string& text = m_atoms[i];
    if (text.size() >= k_long_atom) {
      const std::size_t from = rarest_run(text, k_window, m_stride);
      m_longest_reach = std::max(m_longest_reach, from + m_stride - 1);
      for (std::size_t offset = from; offset < from + m_stride; ++offset) {
        const std::uint32_t key = window_key(text.data() + offset);
        const std::uint32_t at = slot(key);
        m_bits[at >> 6] |= std::uint64_t{1} << (at & 63);
        entries.push_back({at & ((1u << k_bucket_bits) - 1),
                           {key, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(offset)}});
      }
    } else {
      index_short(i, m_short.size() % m_buckets.size());
    }
  }
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  m_first.assign((std::size_t{1} << k_bucket_bits) + 1, 0);
  for (const auto& [bucket, entry] : entries) {
    ++m_first[bucket + 1];
    m_entries.push_back(entry);
  }
  for (std::size_t b = 1; b < m_first.size(); ++b) {
    m_first[b] += m_first[b - 1];
  }
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) {
    m_simd = Simd::avx2;
  } else if (__builtin_cpu_supports("ssse3")) {
    m_simd = Simd::ssse3;
  }
#endif
}

void Prefilter::index_short(std::size_t atom, std::size_t bucket)
{
  const std::string& text = m_atoms[atom];
  const std::size_t offset = rarest_run(text, 3, 1);
  m_buckets[bucket].push_back(static_cast<std::uint32_t>(m_short.size()));
  m_short.push_back({static_cast<std::uint32_t>(atom), static_cast<std::uint32_t>(offset)});
  m_short_reach = std::max(m_short_reach, offset);
  const auto bit = static_cast<std::uint8_t>(1u << bucket);
  for (std::size_t k = 0; k < 3; ++k) {
    const auto c = static_cast<unsigned char>(text[offset + k]);
    // Both cases of a letter: the text is not folded in this tier.
    for (const unsigned char variant : {c, static_cast<unsigned char>(c >= 'a' && c <= 'z' ? c - 0x20 : c)}) {
      m_low[k][variant & 15] |= bit;
      m_high[k][variant >> 4] |= bit;
    }
  }
}

// Whether `atom` starts at `start`, within [begin, end), ASCII case folded.
bool Prefilter::confirm(const char* start, const char* begin, const char* end, std::size_t atom) const
{
  const std::string& text = m_atoms[atom];
  if (start < begin || static_cast<std::size_t>(end - start) < text.size()) {
    return false;
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(start[i]);
    if ((c >= 'A' && c <= 'Z' ? c | 0x20 : c) != static_cast<unsigned char>(text[i])) {
      return false;
    }
  }
  return true;
}

// The first confirmed long atom whose sampled window starts before `limit`.
const char* Prefilter::find_long(const char* begin, const char* end, const char* limit) const
{
  if (m_stride == 0 || end - begin < static_cast<std::ptrdiff_t>(k_window)) {
    return nullptr;
  }
  const char* const last = std::min(end - k_window, limit - 1);  // the last window start
  for (const char* at = begin; at <= last; at += m_stride) {
    const std::uint32_t key = window_key(at);
    const std::uint32_t bit = slot(key);
    if ((m_bits[bit >> 6] >> (bit & 63) & 1) == 0) {
      continue;
    }
    const std::uint32_t bucket = bit & ((1u << k_bucket_bits) - 1);
    for (std::uint32_t e = m_first[bucket]; e < m_first[bucket + 1]; ++e) {
      const Entry& entry = m_entries[e];
      if (entry.key == key && confirm(at - entry.offset, begin, end, entry.atom)) {
        return at - entry.offset;
      }
    }
  }
  return nullptr;
}

// The bucket bits of the short atoms whose fingerprint may be at `at`
// (3 bytes readable).
unsigned Prefilter::short_mask(const char* at) const
{
  unsigned mask = 0xFF;
  for (std::size_t k = 0; k < 3; ++k) {
    const auto c = static_cast<unsigned char>(at[k]);
    mask &= m_low[k][c & 15] & m_high[k][c >> 4];
  }
  return mask;
}

// The start of a confirmed short atom of `buckets` whose fingerprint is at `at`.
const char* Prefilter::short_at(const char* at, unsigned buckets, const char* begin, const char* end) const
{
  for (; buckets != 0; buckets &= buckets - 1) {
    for (const std::uint32_t index : m_buckets[static_cast<std::size_t>(__builtin_ctz(buckets))]) {
      const Short& entry = m_short[index];
      if (at - begin >= static_cast<std::ptrdiff_t>(entry.offset)
          && confirm(at - entry.offset, begin, end, entry.atom)) {
        return at - entry.offset;
      }
    }
  }
  return nullptr;
}

// The first confirmed short atom among the vector lanes set in `hits`
// (lane i: the fingerprint at at + i, its buckets in lanes[i]).
const char* Prefilter::short_lanes(const char* at, std::uint32_t hits, const std::uint8_t* lanes, const char* begin,
                                   const char* end) const
{
  for (; hits != 0; hits &= hits - 1) {
    const auto lane = static_cast<std::size_t>(__builtin_ctz(hits));
    if (const char* start = short_at(at + lane, lanes[lane], begin, end)) {
      return start;
    }
  }
  return nullptr;
}

// Fingerprint positions [from, to), one at a time.
const char* Prefilter::short_scalar(const char* from, const char* to, const char* begin, const char* end) const
{
  for (const char* at = from; at < to; ++at) {
    if (const unsigned buckets = short_mask(at); buckets != 0) {
      if (const char* start = short_at(at, buckets, begin, end)) {
        return start;
      }
    }
  }
  return nullptr;
}

#if defined(__x86_64__)
__attribute__((target("ssse3"))) const char* Prefilter::short_ssse3(const char* from, const char* to,
                                                                  const char* begin, const char* end) const
{
  const __m128i nibble = _mm_set1_epi8(0x0F);
  __m128i low[3];  // NOLINT(*-avoid-c-arrays): std::array drops the vector attributes
  __m128i high[3];  // NOLINT(*-avoid-c-arrays)
  for (std::size_t k = 0; k < 3; ++k) {
    low[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(m_low[k].data()));
    high[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(m_high[k].data()));
  }
  const char* at = from;
  for (; at + 16 <= to; at += 16) {  // reads at[0, 18): to <= end - 2
    __m128i buckets = _mm_set1_epi8(-1);
    for (std::size_t k = 0; k < 3; ++k) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + k));
      const __m128i lo = _mm_and_si128(bytes, nibble);
      const __m128i hi = _mm_and_si128(_mm_srli_epi16(bytes, 4), nibble);
      buckets = _mm_and_si128(buckets, _mm_and_si128(_mm_shuffle_epi8(low[k], lo), _mm_shuffle_epi8(high[k], hi)));
    }
    auto hits = static_cast<unsigned>(~_mm_movemask_epi8(_mm_cmpeq_epi8(buckets, _mm_setzero_si128())) & 0xFFFF);
    if (hits == 0) {
      continue;
    }
    alignas(16) std::array<std::uint8_t, 16> lanes{};
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes.data()), buckets);
    if (const char* start = short_lanes(at, hits, lanes.data(), begin, end)) {
      return start;
    }
  }
  return short_scalar(at, to, begin, end);
}

__attribute__((target("avx2"))) const char* Prefilter::short_avx2(const char* from, const char* to,
                                                                const char* begin, const char* end) const
{
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  __m256i low[3];  // NOLINT(*-avoid-c-arrays): std::array drops the vector attributes
  __m256i high[3];  // NOLINT(*-avoid-c-arrays)
  for (std::size_t k = 0; k < 3; ++k) {  // PSHUFB looks up within each 128-bit lane: the table in both
    low[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(m_low[k].data())));
    high[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(m_high[k].data())));
  }
  const char* at = from;
  for (; at + 32 <= to; at += 32) {  // reads at[0, 34): to <= end - 2
    __m256i buckets = _mm256_set1_epi8(-1);
    for (std::size_t k = 0; k < 3; ++k) {
      const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + k));
      const __m256i lo = _mm256_and_si256(bytes, nibble);
      const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), nibble);
      buckets = _mm256_and_si256(buckets,
                                 _mm256_and_si256(_mm256_shuffle_epi8(low[k], lo), _mm256_shuffle_epi8(high[k], hi)));
    }
    auto hits = ~static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(buckets, _mm256_setzero_si256())));
    if (hits == 0) {
      continue;
    }
    alignas(32) std::array<std::uint8_t, 32> lanes{};
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes.data()), buckets);
    if (const char* start = short_lanes(at, hits, lanes.data(), begin, end)) {
      return start;
    }
  }
  return short_ssse3(at, to, begin, end);
}
#endif

// The first confirmed short atom in [begin, end).
const char* Prefilter::find_short(const char* begin, const char* end) const
{
  if (m_short.empty() || end - begin < 3) {
    return nullptr;
  }
  const char* const to = end - 2;  // fingerprint positions: 3 bytes readable
#if defined(__x86_64__)
  switch (m_simd) {
  case Simd::avx2:
    return short_avx2(begin, to, begin, end);
  case Simd::ssse3:
    return short_ssse3(begin, to, begin, end);
  case Simd::none:
    break;
  }
#endif
  return short_scalar(begin, to, begin, end);
}

const char* Prefilter::find(const char* begin, const char* end) const
{
  if (m_atoms.empty()) {
    return end;
  }
  // The first short atom bounds the long tier: a long atom starting before
  // it is sampled at most m_longest_reach bytes after its start.
  const char* found = find_short(begin, end);
  const char* limit = found == nullptr ? end : found + std::min<std::ptrdiff_t>(end - found, static_cast<std::ptrdiff_t>(m_longest_reach) + 1);
  if (const char* long_atom = find_long(begin, end, limit); long_atom != nullptr && (found == nullptr || long_atom < found)) {
    found = long_atom;
  }
  return found == nullptr ? end : found;
}

} // namespace lg::diagnose
