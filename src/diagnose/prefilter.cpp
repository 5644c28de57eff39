#include "diagnose/prefilter.hpp"

#include <re2/filtered_re2.h>
#include <re2/re2.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>

namespace lg::diagnose {

namespace {

constexpr int k_min_atom = 3;   // FilteredRE2 drops shorter factors (they match everywhere)
constexpr int k_table_bits = 18;  // 2^18 bits: 32 KiB, stays in L1/L2

// Same options as the matcher: one byte, one character.
RE2::Options latin1()
{
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  return options;
}

std::uint32_t fold(unsigned char c)
{
  return c | 0x20u;  // ASCII letters to lower case; other bytes merely share a slot
}

std::uint32_t window_key(const char* at)
{
  const auto* p = reinterpret_cast<const unsigned char*>(at);
  return fold(p[0]) | fold(p[1]) << 8 | fold(p[2]) << 16;
}

std::uint32_t slot(std::uint32_t key)
{
  return (key * 0x9E3779B1u) >> (32 - k_table_bits);
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
  : m_covered(patterns.size(), false),
    m_bits(std::size_t{1} << (k_table_bits - 6), 0)
{
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    if (auto atoms = required_atoms(patterns[i])) {
      m_covered[i] = true;
      for (auto& atom : *atoms) {
        if (std::find(m_atoms.begin(), m_atoms.end(), atom) == m_atoms.end()) {
          m_atoms.push_back(std::move(atom));
        }
      }
    }
  }
  if (m_atoms.empty()) {
    return;
  }
  std::size_t shortest = m_atoms.front().size();
  for (const auto& atom : m_atoms) {
    shortest = std::min(shortest, atom.size());
  }
  // An atom of length L holds the windows starting at 0..L-3; sampling every
  // L-2 bytes lands in each occurrence at least once.
  m_stride = shortest - 2;
  for (std::size_t i = 0; i < m_atoms.size(); ++i) {
    index(i);
  }
}

void Prefilter::index(std::size_t atom)
{
  const std::string& text = m_atoms[atom];
  for (std::size_t offset = 0; offset < m_stride; ++offset) {
    const std::uint32_t key = window_key(text.data() + offset);
    const std::uint32_t at = slot(key);
    m_bits[at >> 6] |= std::uint64_t{1} << (at & 63);
    m_entries[key].push_back({static_cast<std::uint32_t>(atom), static_cast<std::uint32_t>(offset)});
  }
}

// Return the earliest start of an atom whose window at `at` has `key`.
const char* Prefilter::verify(const char* at, const char* begin, const char* end, std::uint32_t key) const
{
  const auto found = m_entries.find(key);
  if (found == m_entries.end()) {
    return nullptr;
  }
  const char* best = nullptr;
  for (const Entry& entry : found->second) {
    const std::string& atom = m_atoms[entry.atom];
    const char* start = at - entry.offset;
    if (start < begin || static_cast<std::size_t>(end - start) < atom.size()) {
      continue;
    }
    bool same = true;
    for (std::size_t i = 0; i < atom.size() && same; ++i) {
      const auto c = static_cast<unsigned char>(start[i]);
      same = (c >= 'A' && c <= 'Z' ? c | 0x20 : c) == static_cast<unsigned char>(atom[i]);
    }
    if (same && (best == nullptr || start < best)) {
      best = start;
    }
  }
  return best;
}

const char* Prefilter::find(const char* begin, const char* end) const
{
  if (m_atoms.empty() || end - begin < 3) {
    return end;
  }
  const char* at = begin;
  const char* const last = end - 3;  // the last window start
  for (; at <= last; at += m_stride) {
    const std::uint32_t key = window_key(at);
    const std::uint32_t bit = slot(key);
    if ((m_bits[bit >> 6] >> (bit & 63) & 1) == 0) {
      continue;
    }
    if (const char* start = verify(at, begin, end, key)) {
      return start;
    }
  }
  return end;
}

} // namespace lg::diagnose
