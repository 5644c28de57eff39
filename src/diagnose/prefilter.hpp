// The literal prefilter of the log scan. For each pattern, RE2's
// FilteredRE2 gives the literal factors ("atoms") a match needs, as an
// AND/OR formula; a greedy pass keeps a smallest-longest set of them that
// every match must contain one of. The scan then looks only for those
// atoms (case-folded), sampling one 3-byte window every `stride` bytes
// through a 32 KiB bit table, and hands the lines that hold one to the
// regular expressions. A pattern without usable atoms is "residual": the
// caller scans for it with the DFA, so nothing is ever missed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace lg::diagnose {

class Prefilter
{
public:
  // Build for `patterns` (RE2 syntax, matched as Latin-1).
  explicit Prefilter(const std::vector<std::string>& patterns);

  // Whether pattern `index` is covered (else it is residual).
  bool covers(std::size_t index) const { return m_covered[index]; }
  bool empty() const { return m_atoms.empty(); }

  // Return the start of the first atom in [begin, end), or end.
  const char* find(const char* begin, const char* end) const;

  const std::vector<std::string>& atoms() const { return m_atoms; }
  std::size_t stride() const { return m_stride; }

private:
  struct Entry
  {
    std::uint32_t atom = 0;
    std::uint32_t offset = 0;  // of the sampled window in the atom
  };

  void index(std::size_t atom);
  const char* verify(const char* at, const char* begin, const char* end, std::uint32_t key) const;

  std::vector<std::string> m_atoms;  // lower case
  std::vector<bool> m_covered;
  std::size_t m_stride = 1;
  std::vector<std::uint64_t> m_bits;
  std::unordered_map<std::uint32_t, std::vector<Entry>> m_entries;
};

} // namespace lg::diagnose
