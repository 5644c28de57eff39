#include "diagnose/matcher.hpp"

#include "util/error.hpp"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>

namespace lg::diagnose {

namespace {

// Patterns are ASCII; Latin-1 makes every byte one character, so invalid
// UTF-8 in a log (binary junk, cut multibyte characters) cannot hide a line.
RE2::Options pattern_options()
{
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  options.set_max_mem(256 << 20);  // DFA cache budget for the set
  return options;
}

re2::StringPiece piece(std::string_view text)
{
  return {text.data(), text.size()};
}

} // namespace

struct Matcher::Impl
{
  Catalogue catalogue;
  RE2::Set set{pattern_options(), RE2::UNANCHORED};
  RE2::Set residual{pattern_options(), RE2::UNANCHORED};  // patterns the prefilter misses
  std::size_t residual_count = 0;
  std::unique_ptr<Prefilter> prefilter;
  std::vector<std::unique_ptr<RE2>> patterns;     // same order as the set
  std::vector<std::size_t> pattern_signature;     // pattern -> signature
  std::vector<std::vector<std::unique_ptr<RE2>>> negatives;  // per signature

  void add(std::size_t signature_index);
  void match_each(std::string_view line, std::vector<int>& matched) const;
};

void Matcher::Impl::add(std::size_t signature_index)
{
  const Signature& sig = catalogue.signatures[signature_index];
  for (const auto& pattern : sig.patterns) {
    std::string error;
    // (?m): in a many-line block ^ and $ match at line ends, as they do per line.
    if (set.Add("(?m:" + pattern + ")", &error) < 0) {
      throw InputError("{}:{}:{}: signature '{}': pattern '{}' does not compile: {}",
                       sig.where.file, sig.where.line, sig.where.column, sig.id, pattern, error);
    }
    patterns.push_back(std::make_unique<RE2>(pattern, pattern_options()));
    pattern_signature.push_back(signature_index);
  }
  auto& negative = negatives.emplace_back();
  for (const auto& pattern : sig.negative) {
    negative.push_back(std::make_unique<RE2>(pattern, pattern_options()));
  }
}

// The fallback when the set's DFA runs out of memory: each pattern alone.
void Matcher::Impl::match_each(std::string_view line, std::vector<int>& matched) const
{
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    if (RE2::PartialMatch(piece(line), *patterns[i])) {
      matched.push_back(static_cast<int>(i));
    }
  }
}

Matcher::Matcher(Catalogue catalogue)
  : m_impl(std::make_unique<Impl>())
{
  m_impl->catalogue = std::move(catalogue);
  std::vector<std::string> all;
  for (std::size_t i = 0; i < m_impl->catalogue.signatures.size(); ++i) {
    m_impl->add(i);
    const auto& patterns = m_impl->catalogue.signatures[i].patterns;
    all.insert(all.end(), patterns.begin(), patterns.end());
  }
  m_impl->prefilter = std::make_unique<Prefilter>(all);
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!m_impl->prefilter->covers(i)) {
      m_impl->residual.Add("(?m:" + all[i] + ")", nullptr);
      ++m_impl->residual_count;
    }
  }
  if (!m_impl->set.Compile() || (m_impl->residual_count > 0 && !m_impl->residual.Compile())) {
    throw InputError("the signature catalogue is too large to compile");
  }
}

Matcher::~Matcher() = default;
Matcher::Matcher(Matcher&&) noexcept = default;
Matcher& Matcher::operator=(Matcher&&) noexcept = default;

const Catalogue& Matcher::catalogue() const
{
  return m_impl->catalogue;
}

const Prefilter& Matcher::prefilter() const
{
  return *m_impl->prefilter;
}

bool Matcher::has_residual() const
{
  return m_impl->residual_count > 0;
}

bool Matcher::residual_may_match(std::string_view block) const
{
  if (m_impl->residual_count == 0) {
    return false;
  }
  RE2::Set::ErrorInfo error{};
  const bool matched = m_impl->residual.Match(piece(block), nullptr, &error);
  return matched || error.kind != RE2::Set::kNoError;
}

void Matcher::match_line(std::string_view line, std::vector<std::size_t>& signatures) const
{
  signatures.clear();
  thread_local std::vector<int> matched;  // reused: this runs once per candidate line
  matched.clear();
  RE2::Set::ErrorInfo error{};
  // Most candidate lines match nothing: asking only whether one matches
  // stops at the first match and allocates nothing (asking which patterns
  // match allocates a set per call inside RE2).
  if (m_impl->set.Match(piece(line), nullptr, &error) || error.kind != RE2::Set::kNoError) {
    error = {};
    if (!m_impl->set.Match(piece(line), &matched, &error) && error.kind != RE2::Set::kNoError) {
      matched.clear();
      m_impl->match_each(line, matched);
    }
  }
  for (const int pattern : matched) {
    const std::size_t sig = m_impl->pattern_signature[static_cast<std::size_t>(pattern)];
    const auto& negative = m_impl->negatives[sig];
    const bool excluded = std::any_of(negative.begin(), negative.end(), [&](const auto& regex) {
      return RE2::PartialMatch(piece(line), *regex);
    });
    if (!excluded) {
      signatures.push_back(sig);
    }
  }
  std::sort(signatures.begin(), signatures.end());
  signatures.erase(std::unique(signatures.begin(), signatures.end()), signatures.end());
}

} // namespace lg::diagnose
