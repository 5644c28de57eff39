// A catalogue compiled for matching: every pattern of every signature in one
// RE2::Set (one DFA pass over a line, linear time, no backtracking), each
// pattern and negative pattern on its own for the per-line checks, the
// literal prefilter that picks the lines worth matching, and a second set
// of the patterns the prefilter cannot cover, run over whole blocks.
#pragma once

#include "diagnose/catalogue.hpp"
#include "diagnose/prefilter.hpp"

#include <memory>
#include <string_view>
#include <vector>

namespace lg::diagnose {

class Matcher
{
public:
  // Compile `catalogue`. Throws InputError naming the signature when a
  // pattern does not compile (parse_catalogue has already checked them).
  explicit Matcher(Catalogue catalogue);
  ~Matcher();
  Matcher(Matcher&&) noexcept;
  Matcher& operator=(Matcher&&) noexcept;
  Matcher(const Matcher&) = delete;
  Matcher& operator=(const Matcher&) = delete;

  const Catalogue& catalogue() const;

  // The literal prefilter: a line with no atom of it can only match a
  // residual pattern.
  const Prefilter& prefilter() const;

  // Whether some pattern is residual (not covered by the prefilter).
  bool has_residual() const;

  // Return false only if no residual pattern can match any line of `block`
  // (many lines). False positives are allowed, false negatives are not.
  bool residual_may_match(std::string_view block) const;

  // Set `signatures` to the indices (into catalogue().signatures, ascending,
  // no duplicates) of the signatures with a pattern matching `line` and no
  // negative pattern matching it.
  void match_line(std::string_view line, std::vector<std::size_t>& signatures) const;

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

} // namespace lg::diagnose
