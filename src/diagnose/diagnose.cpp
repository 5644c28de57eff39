// Choosing the root cause among the hits and assembling the diagnosis.
#include "diagnose/diagnose.hpp"

#include "diagnose/origin.hpp"
#include "diagnose/refine.hpp"
#include "diagnose/timestamp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>

namespace lg::diagnose {

namespace {

constexpr std::size_t k_lookback_lines = 32;  // for a timestamp above a hit
constexpr std::size_t k_evidence_lines = 5;
constexpr std::size_t k_evidence_chars = 400;
constexpr std::size_t k_consequence_events = 128;

struct Candidate
{
  const Hit* hit = nullptr;  // null: the Slurm state
  const Signature* sig = nullptr;
  std::optional<Timestamp> time;
  Origin origin;
};

// Return the timestamp of the hit's line, or of the nearest line above it.
std::optional<Timestamp> timestamp_near(std::string_view text, const Hit& hit)
{
  if (auto stamp = find_timestamp(hit.text)) {
    return stamp;
  }
  std::size_t end = hit.offset;  // start of the line below the one to read
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
  std::vector<const Candidate*> timed;   // those of rank `best` ordered by their timestamp
  std::set<std::size_t> files;
  for (const auto& candidate : candidates) {
    const std::size_t file = candidate.hit ? candidate.hit->file : SIZE_MAX;
    if (candidate.sig->rank != best) {
      continue;
    }
    const bool first_in_file = files.insert(file).second;
    if (first_in_file) {
      firsts.push_back(&candidate);
    }
    // A later line of the same log counts by time only with its own stamp
    // (one borrowed from a line above says nothing about out-of-order lines).
    if (candidate.time && (first_in_file || find_timestamp(candidate.hit->text))) {
      timed.push_back(&candidate);
    }
  }
  const bool all_timed = std::all_of(firsts.begin(), firsts.end(), [](const auto* c) { return c->time.has_value(); });
  if (!all_timed) {
    return *firsts.front();
  }
  // Within one log too: a rank whose stderr was flushed late still says when
  // it failed. Ties keep the log's order.
  return **std::min_element(timed.begin(), timed.end(), [](const auto* a, const auto* b) {
    return compare(*a->time, *b->time) < 0;
  });
}

Evidence evidence_of(const Candidate& candidate, const std::vector<LogFile>& logs,
                     std::string_view state)
{
  if (candidate.hit == nullptr) {
    return {"slurm", 0, fmt::format("job state {}", state)};
  }
  std::string text(candidate.hit->text.substr(0, k_evidence_chars));
  if (candidate.hit->text.size() > k_evidence_chars) {
    text += " …";
  }
  return {logs[candidate.hit->file].name, candidate.hit->line, std::move(text)};
}

// Order candidates in time: by timestamp when every one has one, else by
// position (file, then line), which is time order within one log.
void sort_in_time(std::vector<const Candidate*>& events)
{
  const bool all_timed = std::all_of(events.begin(), events.end(), [](const auto* c) { return c->time.has_value(); });
  std::stable_sort(events.begin(), events.end(), [all_timed](const Candidate* a, const Candidate* b) {
    if (all_timed) {
      return compare(*a->time, *b->time) < 0;
    }
    const std::size_t fa = a->hit ? a->hit->file : SIZE_MAX;
    const std::size_t fb = b->hit ? b->hit->file : SIZE_MAX;
    return fa != fb ? fa < fb : (a->hit && b->hit && a->hit->line < b->hit->line);
  });
}

// The hosts named by each log's NCCL lines, read once per log when needed.
class HostLookup
{
public:
  explicit HostLookup(const std::vector<LogFile>& logs)
    : m_logs(logs),
      m_hosts(logs.size())
  {
  }

  // Return the host of `rank` in log `file`; in a per-rank file (several
  // logs, or a rank in the name) the file's own host.
  std::string host(std::size_t file, std::optional<int> rank)
  {
    if (!m_hosts[file]) {
      m_hosts[file] = hosts_in_text(m_logs[file].text);
    }
    const Hosts& hosts = *m_hosts[file];
    if (rank) {
      if (const auto found = hosts.by_rank.find(*rank); found != hosts.by_rank.end()) {
        return found->second;
      }
    }
    const bool per_rank_file = m_logs.size() > 1 || rank_from_file_name(m_logs[file].name).has_value();
    return per_rank_file ? hosts.first : std::string();
  }

private:
  const std::vector<LogFile>& m_logs;
  std::vector<std::optional<Hosts>> m_hosts;
};

// The first failing rank and host: the deciding line's, completed from the
// same failure's next lines ("srun: error: n1: task 3: Out Of Memory" after
// "Detected 1 oom_kill event"), then from lines naming both (srun's task
// lines, NCCL's init lines).
void set_origin(Diagnosis& diagnosis, const Candidate& winner, const std::vector<Candidate>& candidates,
                HostLookup& hosts)
{
  diagnosis.first_failing_rank = winner.origin.rank;
  diagnosis.host = winner.origin.host;
  if (winner.hit == nullptr) {
    return;
  }
  if (!winner.origin.rank) {
    for (const auto& other : candidates) {
      if (other.hit != nullptr && other.hit->file == winner.hit->file && other.sig->category == winner.sig->category &&
          other.hit->line > winner.hit->line && other.hit->line <= winner.hit->line + k_evidence_lines &&
          other.origin.rank) {
        diagnosis.first_failing_rank = other.origin.rank;
        diagnosis.host = diagnosis.host.empty() ? other.origin.host : diagnosis.host;
        break;
      }
    }
  }
  if (!diagnosis.host.empty()) {
    return;
  }
  for (const auto& other : candidates) {
    if (other.origin.rank && other.origin.rank == diagnosis.first_failing_rank && !other.origin.host.empty() &&
        other.hit != nullptr && other.hit->file == winner.hit->file) {
      diagnosis.host = other.origin.host;
      return;
    }
  }
  diagnosis.host = hosts.host(winner.hit->file, diagnosis.first_failing_rank);
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
    facts.exception_ignored |= fact == "exception_ignored";
    facts.job_failed |= fact == "job_failed";
  }
  return facts;
}

void add_evidence_and_consequences(Diagnosis& diagnosis, const Candidate& winner,
                                   const std::vector<Candidate>& candidates,
                                   const std::vector<LogFile>& logs, const Context& context, HostLookup& hosts)
{
  diagnosis.evidence.push_back(evidence_of(winner, logs, context.slurm_state));
  std::vector<const Candidate*> events;
  std::set<std::tuple<std::string, std::optional<int>, std::size_t>> listed;  // category, rank, file
  if (winner.hit != nullptr) {  // the deciding rank's own repeats are evidence, not consequences
    listed.insert({winner.sig->category, winner.origin.rank, winner.hit->file});
  }
  std::map<std::pair<std::size_t, std::size_t>, int> best_on_line;  // (file, line) -> lowest causal rank
  for (const auto& candidate : candidates) {
    if (candidate.hit != nullptr) {
      auto [entry, fresh] = best_on_line.try_emplace({candidate.hit->file, candidate.hit->line}, candidate.sig->rank);
      entry->second = fresh ? entry->second : std::min(entry->second, candidate.sig->rank);
    }
  }
  for (const auto& candidate : candidates) {
    if (&candidate == &winner || candidate.hit == nullptr ||
        (winner.hit != nullptr && candidate.hit->file == winner.hit->file && candidate.hit->line == winner.hit->line) ||
        best_on_line[{candidate.hit->file, candidate.hit->line}] < candidate.sig->rank) {
      continue;  // one line is one event, read as its most specific signature
    }
    if (candidate.hit == winner.hit || listed.insert({candidate.sig->category, candidate.origin.rank,
                                                      candidate.hit->file}).second == false) {
      continue;
    }
    events.push_back(&candidate);
  }
  sort_in_time(events);
  for (const Candidate* event : events) {
    if (diagnosis.consequence_events.size() == k_consequence_events) {
      break;
    }
    Evidence line = evidence_of(*event, logs, context.slurm_state);
    std::string host = event->origin.host.empty() ? hosts.host(event->hit->file, event->origin.rank) : event->origin.host;
    diagnosis.consequence_events.push_back({event->sig->category, event->origin.rank, std::move(host),
                                            std::move(line.file), line.line, std::move(line.text)});
  }
  std::set<std::pair<std::string, std::size_t>> seen{{diagnosis.evidence[0].file, diagnosis.evidence[0].line}};
  std::vector<std::pair<int, std::string>> others;
  for (const auto& candidate : candidates) {
    if (candidate.sig->category != winner.sig->category) {
      others.emplace_back(candidate.sig->rank, candidate.sig->category);
      continue;
    }
    Evidence more = evidence_of(candidate, logs, context.slurm_state);
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

// No failure line at all: "unknown" when Slurm says the job failed, else
// "none" (no evidence of a failure).
Diagnosis no_cause(const Context& context, const Catalogue& catalogue)
{
  Diagnosis diagnosis;
  if (!is_failed_state(context.slurm_state)) {
    diagnosis.confidence = 0.8;
    diagnosis.fix = "No failure found in the logs; nothing to change.";
    diagnosis.reason = "no failure line (error, exit status, signal, teardown) in the logs";
    return diagnosis;
  }
  diagnosis.category = "unknown";
  diagnosis.confidence = 0.2;
  diagnosis.reason = fmt::format("Slurm says {} but the logs have no failure line", context.slurm_state);
  apply_defaults(diagnosis, nullptr, catalogue);
  diagnosis.evidence.push_back({"slurm", 0, fmt::format("job state {}", context.slurm_state)});
  return diagnosis;
}

// A fact signature (a user catalogue's "job_failed") stands for the job
// stopping: an "unknown" failure line, like the shipped job-stopped lines.
const Signature& job_failed_signature()
{
  static const Signature sig = [] {
    Signature s;
    s.id = "fact-job-failed";
    s.category = "unknown";
    s.rank = 95;
    s.confidence = 0.3;
    return s;
  }();
  return sig;
}

// Only timeouts (no root cause in the logs): the ranks that printed none are
// the suspects (a straggler, or a rank whose log is missing). Skipped when a
// file hit the per-signature cap, which would hide ranks.
void name_silent_ranks(Diagnosis& diagnosis, const std::vector<Candidate>& candidates, std::size_t cap)
{
  if (diagnosis.category != "nccl_timeout") {
    return;
  }
  std::set<int> ranks;
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> per_file;  // (file, signature) -> hits
  for (const auto& c : candidates) {
    if (c.hit != nullptr && c.sig->category == "nccl_timeout") {
      if (++per_file[{c.hit->file, c.hit->signature}] >= cap) {
        return;
      }
      if (c.origin.rank) {
        ranks.insert(*c.origin.rank);
      }
    }
  }
  if (ranks.size() < 2) {
    return;
  }
  std::vector<int> silent;
  for (int rank = 0; rank < *ranks.rbegin(); ++rank) {
    if (ranks.count(rank) == 0) {
      silent.push_back(rank);
    }
  }
  if (!silent.empty() && silent.size() <= 8) {
    diagnosis.reason = fmt::format("every failure line is a collective timeout; rank{} {} printed none: look there "
                                   "first (a straggler, a hang, or a rank whose log is missing)",
                                   silent.size() == 1 ? "" : "s", fmt::join(silent, ", "));
  }
}

// Name the node in a fix that says "--exclude=<node>".
void name_the_node(Diagnosis& diagnosis)
{
  const auto at = diagnosis.fix.find("<node>");
  if (at != std::string::npos && !diagnosis.host.empty()) {
    diagnosis.fix.replace(at, 6, diagnosis.host);
  }
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

Diagnosis diagnose(const std::vector<LogFile>& logs, const Matcher& matcher, const Context& context,
                   const ScanOptions& options)
{
  const Catalogue& catalogue = matcher.catalogue();
  const std::vector<Hit> hits = scan_logs(logs, matcher, options);
  const Facts facts = collect_facts(hits, catalogue, context);
  std::vector<Candidate> candidates;
  for (const Hit& hit : hits) {
    const Signature& sig = catalogue.signatures[hit.signature];
    const Signature* as = !sig.category.empty() ? &sig : sig.fact == "job_failed" ? &job_failed_signature() : nullptr;
    if (as != nullptr) {
      const LogFile& log = logs[hit.file];
      candidates.push_back({&hit, as, timestamp_near(log.text, hit), origin_of_hit(log.text, hit.offset, log.name)});
    }
  }
  const auto state_sig = state_signature(context.slurm_state.substr(0, context.slurm_state.find(' ')));
  if (state_sig) {
    candidates.push_back({nullptr, &*state_sig, std::nullopt, {}});
  }
  // CPython's "Exception ignored in: <function …__del__>" and its traceback
  // are printed for an exception that did not stop anything (a destructor at
  // interpreter shutdown): when exceptions are all there is, no failure.
  const bool only_exceptions = std::all_of(candidates.begin(), candidates.end(), [](const Candidate& c) {
    return c.hit != nullptr && c.sig->category == "unknown" && (c.sig->id == "python-exception" || c.sig->id == "python-traceback");
  });
  if (candidates.empty() || (facts.exception_ignored && only_exceptions)) {
    return no_cause(context, catalogue);
  }
  const Candidate& winner = choose(candidates);
  Diagnosis diagnosis;
  diagnosis.category = winner.sig->category;
  diagnosis.confidence = winner.sig->confidence;
  diagnosis.signature = winner.sig->id;
  apply_defaults(diagnosis, winner.sig, catalogue);
  if (winner.sig->parse == "torch_oom" && winner.hit != nullptr) {
    refine_oom(diagnosis, gather_oom_message(logs[winner.hit->file].text, winner.hit->offset), facts,
               catalogue);
  }
  if (diagnosis.category == "unknown" && diagnosis.reason.empty()) {
    diagnosis.reason = "the logs show a failure (the evidence line) but no known cause";
  }
  apply_facts(diagnosis, facts, winner.hit != nullptr ? winner.hit->text : std::string_view(), catalogue);
  if (state_sig && state_sig->category == diagnosis.category) {
    diagnosis.confidence = std::max(diagnosis.confidence, 0.95);
  }
  HostLookup hosts(logs);
  add_evidence_and_consequences(diagnosis, winner, candidates, logs, context, hosts);
  set_origin(diagnosis, winner, candidates, hosts);
  name_silent_ranks(diagnosis, candidates, options.hits_per_signature);
  name_the_node(diagnosis);
  return diagnosis;
}

Diagnosis diagnose(const std::vector<LogFile>& logs, const Catalogue& catalogue, const Context& context)
{
  const Matcher matcher(catalogue);
  return diagnose(logs, matcher, context);
}

} // namespace lg::diagnose
