// Choosing the root cause among the hits and assembling the diagnosis.
#include "diagnose/diagnose.hpp"

#include "diagnose/refine.hpp"
#include "diagnose/timestamp.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <set>

namespace lg::diagnose {

namespace {

constexpr std::size_t k_lookback_lines = 32;  // for a timestamp above a hit
constexpr std::size_t k_evidence_lines = 5;
constexpr std::size_t k_evidence_chars = 400;

struct Candidate
{
  const Hit* hit = nullptr;  // null: the Slurm state
  const Signature* sig = nullptr;
  std::optional<Timestamp> time;
};

// Return the timestamp of the hit's line, or of the nearest line above it
// (in the context the scan kept for the first hit of its signature).
std::optional<Timestamp> timestamp_near(const Hit& hit)
{
  if (auto stamp = find_timestamp(hit.text)) {
    return stamp;
  }
  const std::string_view text = hit.context;
  std::size_t end = hit.context_offset;  // start of the line below the one to read
  for (std::size_t i = 0; i < k_lookback_lines && end > 0; ++i) {
    const auto newline = end >= 2 ? text.rfind('\n', end - 2) : std::string_view::npos;
    const std::size_t begin = newline == std::string_view::npos ? 0 : newline + 1;
    if (auto stamp = find_timestamp(text.substr(begin, end - 1 - begin))) {
      return stamp;
    }
    end = begin;
  }
  return std::nullopt;
}

// The signature standing for a Slurm final state, when the state is a cause.
std::optional<Signature> state_signature(std::string_view state)
{
  Signature sig;
  sig.id = fmt::format("slurm-state-{}", state);
  sig.confidence = 0.85;
  if (state == "OUT_OF_MEMORY") {
    sig.category = "host_oom";
    sig.rank = 20;
  } else if (state == "TIMEOUT" || state == "DEADLINE") {
    sig.category = "slurm_time_limit";
    sig.rank = 45;
  } else if (state == "NODE_FAIL" || state == "PREEMPTED" || state == "BOOT_FAIL") {
    sig.category = "slurm_preemption_or_node_failure";
    sig.rank = 45;
  } else {
    return std::nullopt;
  }
  return sig;
}

// Pick the root cause: lowest rank, then the first in time (see diagnose.hpp).
const Candidate& choose(const std::vector<Candidate>& candidates)
{
  const int best = std::min_element(candidates.begin(), candidates.end(),
                                    [](const auto& a, const auto& b) { return a.sig->rank < b.sig->rank; })
                     ->sig->rank;
  std::vector<const Candidate*> firsts;  // the first of rank `best` in each file
  std::set<std::size_t> files;
  for (const auto& candidate : candidates) {
    const std::size_t file = candidate.hit ? candidate.hit->file : SIZE_MAX;
    if (candidate.sig->rank == best && files.insert(file).second) {
      firsts.push_back(&candidate);
    }
  }
  const bool all_timed = std::all_of(firsts.begin(), firsts.end(), [](const auto* c) { return c->time.has_value(); });
  if (!all_timed) {
    return *firsts.front();
  }
  return **std::min_element(firsts.begin(), firsts.end(), [](const auto* a, const auto* b) {
    return compare(*a->time, *b->time) < 0;
  });
}

Evidence evidence_of(const Candidate& candidate, const std::vector<std::string>& names,
                     std::string_view state)
{
  if (candidate.hit == nullptr) {
    return {"slurm", 0, fmt::format("job state {}", state)};
  }
  std::string text(candidate.hit->text.substr(0, k_evidence_chars));
  if (candidate.hit->text.size() > k_evidence_chars) {
    text += " …";
  }
  return {names[candidate.hit->file], candidate.hit->line, std::move(text)};
}

Facts collect_facts(const std::vector<Hit>& hits, const Catalogue& catalogue, const Context& context)
{
  Facts facts;
  facts.expandable_segments_set = context.expandable_segments_set.value_or(false);
  for (const Hit& hit : hits) {
    const std::string& fact = catalogue.signatures[hit.signature].fact;
    facts.expandable_segments_set |= fact == "expandable_segments_set";
    facts.expandable_segments_unsupported |= fact == "expandable_segments_unsupported";
    facts.training_finished |= fact == "training_finished";
    facts.job_failed |= fact == "job_failed";
  }
  return facts;
}

void add_evidence_and_consequences(Diagnosis& diagnosis, const Candidate& winner,
                                   const std::vector<Candidate>& candidates,
                                   const std::vector<std::string>& names, const Context& context)
{
  diagnosis.evidence.push_back(evidence_of(winner, names, context.slurm_state));
  std::set<std::pair<std::string, std::size_t>> seen{{diagnosis.evidence[0].file, diagnosis.evidence[0].line}};
  std::vector<std::pair<int, std::string>> others;
  for (const auto& candidate : candidates) {
    if (candidate.sig->category != winner.sig->category) {
      others.emplace_back(candidate.sig->rank, candidate.sig->category);
      continue;
    }
    Evidence more = evidence_of(candidate, names, context.slurm_state);
    if (diagnosis.evidence.size() < k_evidence_lines && seen.insert({more.file, more.line}).second) {
      diagnosis.evidence.push_back(std::move(more));
    }
  }
  // By rank; within a rank in order of appearance.
  std::stable_sort(others.begin(), others.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [rank, category] : others) {
    if (category != diagnosis.category && category != "unknown" &&
        std::find(diagnosis.consequences.begin(), diagnosis.consequences.end(), category) ==
          diagnosis.consequences.end()) {
      diagnosis.consequences.push_back(category);
    }
  }
}

// No cause found: "unknown" with the exit-status lines as evidence when Slurm
// says the job failed, else "none" (an exit status alone is no diagnosis).
Diagnosis no_cause(const std::vector<Hit>& hits, const std::vector<std::string>& names,
                   const Context& context, const Facts& facts, const Catalogue& catalogue)
{
  Diagnosis diagnosis;
  if (!is_failed_state(context.slurm_state)) {
    diagnosis.confidence = facts.job_failed ? 0.5 : 0.8;
    diagnosis.fix = "No failure found in the logs; nothing to change.";
    diagnosis.reason = facts.job_failed
                         ? "the logs show the job stopped with an error status, but no known failure "
                           "signature; give the Slurm state (--state) to report it as unknown"
                         : "no failure signature matched";
    return diagnosis;
  }
  diagnosis.category = "unknown";
  diagnosis.confidence = 0.2;
  diagnosis.reason = fmt::format("Slurm says {} but no known signature matched the logs", context.slurm_state);
  apply_defaults(diagnosis, nullptr, catalogue);
  for (const Hit& hit : hits) {
    if (catalogue.signatures[hit.signature].fact == "job_failed" && diagnosis.evidence.size() < k_evidence_lines) {
      diagnosis.evidence.push_back({names[hit.file], hit.line, hit.text.substr(0, k_evidence_chars)});
    }
  }
  return diagnosis;
}

} // namespace

bool is_failed_state(std::string_view state)
{
  static const std::array<std::string_view, 9> failed = {
    "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL",
    "DEADLINE", "REVOKED"};
  const auto space = state.find(' ');  // "CANCELLED by 1234"
  return std::find(failed.begin(), failed.end(), state.substr(0, space)) != failed.end();
}

Diagnosis diagnose_scan(const ScanResult& scan, const Matcher& matcher, const Context& context)
{
  const Catalogue& catalogue = matcher.catalogue();
  const std::vector<Hit>& hits = scan.hits;
  const std::vector<std::string>& names = scan.names;
  const Facts facts = collect_facts(hits, catalogue, context);
  std::vector<Candidate> candidates;
  for (const Hit& hit : hits) {
    const Signature& sig = catalogue.signatures[hit.signature];
    if (!sig.category.empty()) {
      candidates.push_back({&hit, &sig, timestamp_near(hit)});
    }
  }
  const auto state_sig = state_signature(context.slurm_state.substr(0, context.slurm_state.find(' ')));
  if (state_sig) {
    candidates.push_back({nullptr, &*state_sig, std::nullopt});
  }
  if (candidates.empty()) {
    return no_cause(hits, names, context, facts, catalogue);
  }
  const Candidate& winner = choose(candidates);
  Diagnosis diagnosis;
  diagnosis.category = winner.sig->category;
  diagnosis.confidence = winner.sig->confidence;
  diagnosis.signature = winner.sig->id;
  apply_defaults(diagnosis, winner.sig, catalogue);
  if (winner.sig->parse == "torch_oom" && winner.hit != nullptr) {
    refine_oom(diagnosis, gather_oom_message(winner.hit->context, winner.hit->context_offset), facts,
               catalogue);
  }
  apply_facts(diagnosis, facts);
  if (state_sig && state_sig->category == diagnosis.category) {
    diagnosis.confidence = std::max(diagnosis.confidence, 0.95);
  }
  add_evidence_and_consequences(diagnosis, winner, candidates, names, context);
  return diagnosis;
}

Diagnosis diagnose(const std::vector<LogFile>& logs, const Matcher& matcher, const Context& context,
                   const ScanOptions& options)
{
  return diagnose_scan(scan_logs(logs, matcher, options), matcher, context);
}

Diagnosis diagnose(const std::vector<LogFile>& logs, const Catalogue& catalogue, const Context& context)
{
  const Matcher matcher(catalogue);
  return diagnose(logs, matcher, context);
}

} // namespace lg::diagnose
