// The literal prefilter of the log scan. For each pattern, RE2's
// FilteredRE2 gives the literal factors ("atoms") a match needs, as an
// AND/OR formula; a greedy pass keeps a smallest-longest set of them that
// every match must contain one of. An atom that holds another is dropped
// (the shorter one finds its lines). The scan then looks only for those
// atoms, ASCII case folded, in two tiers:
//   - long atoms (k_long_atom bytes or more): one 4-byte window sampled
//     every `stride` bytes, hashed into a 32 KiB bit table; the windows an
//     atom is indexed by are its rarest run of `stride` consecutive ones;
//   - short atoms: a Teddy-style SIMD fingerprint (the nibbles of 3 bytes
//     of each atom looked up with PSHUFB, 16 positions at a time, SSSE3 or
//     AVX2 chosen at run time; a scalar loop on other CPUs and at the ends),
//     so one short atom does not force a small stride on the long ones.
// A candidate is confirmed byte by byte before it is reported. Lines with no
// atom of either tier reach no covered pattern. A pattern without usable
// atoms is "residual": the caller scans for it with the DFA, so nothing is
// ever missed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lg::diagnose {

class Prefilter
{
public:
  // Atoms shorter than this go to the SIMD fingerprint tier.
  static constexpr std::size_t k_long_atom = 10;

  // Build for `patterns` (RE2 syntax, matched as Latin-1).
  explicit Prefilter(const std::vector<std::string>& patterns);

  // Whether pattern `index` is covered (else it is residual).
  bool covers(std::size_t index) const { return m_covered[index]; }
  bool empty() const { return m_atoms.empty(); }

  // Return the start of an atom in [begin, end) that lies in the first line
  // (the first '\n'-free stretch) of [begin, end) holding any atom, or end.
  const char* find(const char* begin, const char* end) const;

  const std::vector<std::string>& atoms() const { return m_atoms; }
  // The sampling stride of the long tier (0 when it is empty).
  std::size_t stride() const { return m_stride; }
  std::size_t short_atoms() const { return m_short.size(); }

  // For tests: force the portable scalar path of the short tier.
  void use_scalar_only() { m_simd = Simd::none; }

private:
  enum class Simd { none, ssse3, avx2 };

  struct Entry
  {
    std::uint32_t key = 0;
    std::uint32_t atom = 0;
    std::uint32_t offset = 0;  // of the sampled window in the atom
  };

  struct Short
  {
    std::uint32_t atom = 0;
    std::uint32_t offset = 0;  // of the 3 fingerprint bytes in the atom
  };

  void index_long(std::size_t atom);
  void index_short(std::size_t atom, std::size_t bucket);
  bool confirm(const char* start, const char* begin, const char* end, std::size_t atom) const;
  const char* find_long(const char* begin, const char* end, const char* limit) const;
  const char* find_short(const char* begin, const char* end) const;
  const char* short_at(const char* at, unsigned buckets, const char* begin, const char* end) const;
  const char* short_lanes(const char* at, std::uint32_t hits, const std::uint8_t* lanes, const char* begin,
                          const char* end) const;
  unsigned short_mask(const char* at) const;
  const char* short_scalar(const char* from, const char* to, const char* begin, const char* end) const;
#if defined(__x86_64__)
  const char* short_ssse3(const char* from, const char* to, const char* begin, const char* end) const;
  const char* short_avx2(const char* from, const char* to, const char* begin, const char* end) const;
#endif

  std::vector<std::string> m_atoms;  // lower case
  std::vector<bool> m_covered;
  // Long tier.
  std::size_t m_stride = 0;
  std::size_t m_longest_reach = 0;  // the most bytes a sample may lie past its atom's start
  std::vector<std::uint64_t> m_bits;
  std::vector<std::uint32_t> m_first;  // per slot: its entries are [m_first[s], m_first[s + 1])
  std::vector<Entry> m_entries;
  // Short tier: 8 buckets; per fingerprint byte k, the buckets with an atom
  // whose byte k has a given low / high nibble.
  std::vector<Short> m_short;
  std::array<std::vector<std::uint32_t>, 8> m_buckets;  // indices into m_short
  std::array<std::array<std::uint8_t, 16>, 3> m_low{};
  std::array<std::array<std::uint8_t, 16>, 3> m_high{};
  std::size_t m_short_reach = 0;  // the largest fingerprint offset
  Simd m_simd = Simd::none;
};

} // namespace lg::diagnose
