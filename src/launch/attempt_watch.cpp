// Following an attempt to its end: batched polls, log tails, live memory
// reports, early cancel on a fatal log line, hangs (iteration lines that
// stopped while Slurm says RUNNING), the final diagnosis.
#include "launch/runner_steps.hpp"

#include "diagnose/category.hpp"
#include "diagnose/diagnose.hpp"
#include "env/compose.hpp"
#include "env/flight_recorder.hpp"
#include "launch/retry.hpp"
#include "preflight/judge.hpp"
#include "render/render.hpp"
#include "slurm/parse.hpp"
#include "util/bytes.hpp"
#include "util/error.hpp"
#include "util/log_reader.hpp"
#include "watch/flight_recorder_dumps.hpp"
#include "watch/hang_monitor.hpp"
#include "watch/job_logs.hpp"
#include "watch/log_tail.hpp"
#include "watch/memory_report.hpp"
#include "watch/observed_state.hpp"
#include "watch/session.hpp"

#include <fmt/format.h>

#include <memory>
#include <optional>

namespace lg::launch {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

namespace {

// The job's logs as streams (plain, gzip or zstd). A log that cannot be
// opened is left out, as Slurm may not have written it.
std::vector<diagnose::LogStream> open_logs(const std::vector<fs::path>& files)
{
  std::vector<diagnose::LogStream> streams;
  for (const auto& file : files) {
    std::shared_ptr<LogReader> reader;
    try {
      reader = std::make_shared<LogReader>(file.string());
    } catch (const InputError&) {
      continue;
    }
    streams.push_back({file.string(), [reader](char* buffer, std::size_t size) { return reader->read(buffer, size); }});
  }
  return streams;
}

diagnose::Diagnosis diagnose_attempt(const config::JobSpec& spec, const std::string& job_id,
                                     const watch::ObservedState& state, const RunContext& context)
{
  const auto files = watch::job_log_files(spec.launch.output, render::sanitize_job_name(spec.name), job_id,
                                          context.submit_dir);
  diagnose::Context facts;
  facts.slurm_state = watch::to_string(state);
  facts.expandable_segments_set = preflight::expandable_segments_on(spec);
  try {
    return diagnose::diagnose_scan(diagnose::scan_streams(open_logs(files), *context.matcher), *context.matcher,
                                   facts);
  } catch (const InputError& e) {
    // A log cut or damaged mid-stream: not read, so not called clean.
    diagnose::Diagnosis unread;
    unread.category = "unknown";
    unread.reason = e.what();
    unread.fix = "Read the job's logs by hand; launchguard could not read them to the end.";
    return unread;
  }
}

struct LiveState
{
  LiveState(const watch::Clock& clock, const watch::HangPolicy& policy)
    : hang(clock, policy)
  {}

  watch::LogTail tail;
  watch::HangMonitor hang;
  double max_allocated = 0;
  std::optional<watch::Clock::time_point> fatal_seen;
  std::string fatal_category;
  bool cancelled = false;
};

// Read what the job's logs gained since the last poll: live memory reports
// and early fatal signatures.
void follow_logs(Journal& journal, const AttemptState& attempt, const config::JobSpec& spec, LiveState& live,
                 const RunOptions& options, const RunContext& context, watch::Clock::time_point now)
{
  const auto files = watch::job_log_files(spec.launch.output, render::sanitize_job_name(spec.name),
                                          *attempt.job_id, context.submit_dir);
  std::vector<std::string> texts;
  std::vector<diagnose::LogFile> fresh;
  for (const auto& file : files) {
    std::string text;
    for (const auto& line : live.tail.poll(file)) {
      live.hang.observe(line);
      if (auto report = watch::parse_memory_report(line.text); report && report->max_allocated_bytes > live.max_allocated) {
        live.max_allocated = report->max_allocated_bytes;
        journal.append("memory", {{"attempt", attempt.number}, {"max_allocated_bytes", live.max_allocated}});
        const std::string versus =
          options.estimated_allocated_bytes > 0
            ? fmt::format(" vs {} estimated", format_bytes(options.estimated_allocated_bytes))
            : std::string();
        say(context, fmt::format("attempt {}: max allocated {} (rank {}){}", attempt.number,
                                 format_bytes(live.max_allocated), report->rank, versus));
      }
      text += line.text;
      text += '\n';
    }
    texts.push_back(std::move(text));
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!texts[i].empty()) {
      fresh.push_back(diagnose::LogFile{files[i].string(), texts[i]});
    }
  }
  if (fresh.empty() || live.fatal_seen) {
    return;
  }
  const auto early = diagnose::diagnose(fresh, *context.matcher, {});
  if (is_memory_failure(early.category) || early.category == diagnose::to_string(diagnose::Category::cpu_offload_with_pp)) {
    live.fatal_seen = now;
    live.fatal_category = early.category;
    say(context, fmt::format("attempt {}: {} in the logs while the job runs", attempt.number, early.category));
  }
}

void cancel_attempt_job(Journal& journal, const AttemptState& attempt, LiveState& live, const std::string& reason,
                        const std::string& why, const RunContext& context)
{
  say(context, fmt::format("attempt {}: cancelling job {}: {}", attempt.number, *attempt.job_id, why));
  journal.append("cancel_requested", {{"attempt", attempt.number}, {"reason", reason}});
  context.client->cancel(*attempt.job_id);
  live.cancelled = true;
}

// While Slurm says RUNNING: report a stall once (journal "hang"), say so when
// progress resumes, and cancel after the grace unless told not to.
void check_progress(Journal& journal, const AttemptState& attempt, LiveState& live,
                    const watch::ObservedState& slurm_state, const RunOptions& options, const RunContext& context)
{
  if (live.cancelled) {
    return;
  }
  const watch::HangLook look = live.hang.look(slurm_state);
  if (look.resumed) {
    say(context, fmt::format("attempt {}: iterations advance again; not a hang", attempt.number));
    journal.append("progress_resumed", {{"attempt", attempt.number}});
  }
  if (look.reported) {
    const watch::Stall& stall = *look.stall;
    nlohmann::json silent = nlohmann::json::array();
    for (const int rank : stall.silent_ranks) {
      silent.push_back(rank);
    }
    journal.append("hang", {{"attempt", attempt.number},
                            {"last_iteration", stall.last_iteration},
                            {"silent_ranks", silent},
                            {"silent_for_s", std::chrono::duration<double>(stall.silent_for).count()},
                            {"threshold_s", std::chrono::duration<double>(stall.threshold).count()}});
    say(context, fmt::format("attempt {}: {}", attempt.number,
                             watch::describe_hang(
                               stall, options.hang_cancel
                                        ? fmt::format("cancelling in {:.0f} s unless it advances",
                                                      std::chrono::duration<double>(options.hang_grace).count())
                                        : std::string("not cancelling (--no-hang-cancel)"))));
  }
  if (look.cancel_now) {
    const std::string category(diagnose::to_string(diagnose::Category::hang_no_progress));
    cancel_attempt_job(journal, attempt, live, category,
                       fmt::format("{} and no progress through the {:.0f} s grace", category,
                                   std::chrono::duration<double>(options.hang_grace).count()),
                       context);
  }
}

// A node failure whose logs name no host: Slurm's own record of the job
// (the answers the watch's queries already returned; no extra query) names
// the node when exactly one is a candidate (a one-node job, or the nodes
// every NODE_FAIL step ran on); otherwise the candidates are evidence and
// none is excluded: leaving every node of the allocation out would
// exclude healthy nodes and may leave the job nowhere to run.
void name_failed_node(diagnose::Diagnosis& diagnosis, const slurm::JobStatus& ran, const std::string& job_id)
{
  const slurm::NodeFailCandidates candidates = slurm::node_fail_candidates(ran);
  if (candidates.nodes.size() == 1) {
    diagnosis.host = candidates.nodes.front();
    diagnosis.evidence.push_back(
      {"slurm", 0, fmt::format("job {}: node {} ({})", job_id, diagnosis.host, candidates.source)});
  } else if (candidates.nodes.size() > 1) {
    constexpr std::size_t shown = 16;
    const std::vector<std::string> named(
      candidates.nodes.begin(), candidates.nodes.begin() + static_cast<long>(std::min(shown, candidates.nodes.size())));
    diagnosis.evidence.push_back(
      {"slurm", 0,
       fmt::format("job {}: the failed node is one of {} candidates ({}{}; {}); Slurm's record does not say which, so "
                   "none is excluded",
                   job_id, candidates.nodes.size(), fmt::join(named, ", "),
                   candidates.nodes.size() > shown ? ", …" : "", candidates.source)});
  }
}

watch::QueryFn query_of(const RunContext& context)
{
  if (context.query) {
    return context.query;
  }
  slurm::Client* client = context.client;
  return [client](std::span<const slurm::JobId> ids, milliseconds) { return client->query(ids); };
}

} // namespace

void watch_attempt(Journal& journal, const AttemptState& attempt, const config::JobSpec& spec,
                   const RunOptions& options, const RunContext& context)
{
  watch::Clock& clock = clock_of(context);
  watch::Session session(query_of(context), clock,
                         watch::SessionOptions{options.schedule, options.vanish_after, options.follow_every});
  const std::string& job_id = *attempt.job_id;
  session.add(job_id);
  LiveState live(clock, watch::HangPolicy{options.hang, options.hang_grace, options.hang_cancel});
  watch::ObservedState last_state = attempt.last_state;
  std::optional<slurm::JobStatus> last_ran;  // Slurm's latest answer with a NodeList (sacct: with its steps)
  const auto end = session.run(
    [&](const watch::Cycle& cycle) {
      if (cycle.outage_changed) {
        say(context, cycle.outage ? fmt::format("Slurm is not answering ({}); still watching", cycle.outage_message)
                                  : std::string("Slurm answers again"));
      }
      follow_logs(journal, attempt, spec, live, options, context, clock.now());
      bool ended = false;
      for (const auto& update : cycle.updates) {
        ended = ended || update.ended;
        if (update.vanished) {
          say(context, fmt::format("attempt {}: job {} is unknown to Slurm (neither squeue nor sacct) for {:.0f} s: "
                                   "it vanished",
                                   attempt.number, job_id,
                                   std::chrono::duration<double>(update.missing_for).count()));
          last_state = watch::ObservedState::vanished();
          continue;
        }
        if (!update.status.nodes.empty()) {
          last_ran = update.status;
        }
        const watch::ObservedState state = watch::observed_state(update.status);
        if (state != last_state) {
          const std::string text = watch::to_string(state);
          journal.append("state", {{"attempt", attempt.number}, {"job_id", job_id}, {"state", text}});
          say(context, fmt::format("attempt {}: job {} {}", attempt.number, job_id, text));
          last_state = state;
        }
      }
      if (ended) {
        return false;
      }
      if (live.fatal_seen && !live.cancelled && clock.now() - *live.fatal_seen >= options.failure_grace) {
        cancel_attempt_job(journal, attempt, live, live.fatal_category,
                           live.fatal_category + " and the job is still running", context);
      }
      if (!live.fatal_seen) {
        check_progress(journal, attempt, live, last_state, options, context);
      }
      if (context.status) {
        context.status(fmt::format("job {} {} | max allocated {} | next check in {:.0f} s", job_id,
                                   last_state.kind == watch::ObservedState::Kind::none ? "(not yet known)" : watch::to_string(last_state),
                                   format_bytes(live.max_allocated),
                                   static_cast<double>(cycle.next_poll.count()) / 1000.0));
      }
      return true;
    },
    context.interrupted);
  if (end == watch::Session::End::interrupted) {
    return;
  }
  auto diagnosis = diagnose_attempt(spec, *attempt.job_id, last_state, context);
  if (live.hang.hang()) {
    watch::apply_hang(diagnosis, *live.hang.hang(), context.matcher->catalogue());
  }
  if (diagnosis.host.empty() && is_node_failure(diagnosis.category, last_state.state) && last_ran) {
    name_failed_node(diagnosis, *last_ran, job_id);
  }
  if (diagnose::is_failure(diagnosis.category)) {
    const auto logs = watch::job_log_files(spec.launch.output, render::sanitize_job_name(spec.name), job_id,
                                           context.submit_dir);
    const std::string prefix = env::flight_recorder_dump_prefix(env::compose(spec, {}));
    const fs::path dump_prefix = prefix.empty() || fs::path(prefix).is_absolute() ? fs::path(prefix)
                                                                                  : context.submit_dir / prefix;
    for (const auto& dump : watch::flight_recorder_dumps(logs, dump_prefix.string(), job_id)) {
      diagnosis.flight_recorder_dumps.push_back(dump.string());
    }
  }
  nlohmann::json evidence = nlohmann::json::array();
  for (const auto& e : diagnosis.evidence) {
    evidence.push_back({{"file", e.file}, {"line", e.line}, {"text", e.text}});
  }
  journal.append("diagnosis", {{"attempt", attempt.number},
                               {"category", diagnosis.category},
                               {"confidence", diagnosis.confidence},
                               {"fix", diagnosis.fix},
                               {"suggested_change", diagnosis.suggested_change},
                               {"retryable", diagnosis.retryable},
                               {"evidence", evidence},
                               {"host", diagnosis.host},
                               {"flight_recorder_dumps", diagnosis.flight_recorder_dumps}});
  const bool completed = last_state.is(slurm::JobState::completed);
  const std::string outcome = to_string(completed ? AttemptResult::completed
                                        : last_state.kind == watch::ObservedState::Kind::vanished
                                          ? AttemptResult::vanished
                                          : AttemptResult::failed);
  const std::string state_text = watch::to_string(last_state);
  journal.append("attempt_finished", {{"attempt", attempt.number}, {"outcome", outcome}, {"state", state_text}});
  say(context, fmt::format("attempt {}: {} — diagnosis: {}", attempt.number, state_text, diagnosis.category));
  if (!diagnosis.evidence.empty() && !completed) {
    const auto& e = diagnosis.evidence.front();
    say(context, fmt::format("  evidence: {}:{}: {}", e.file, e.line, e.text.substr(0, 200)));
    say(context, fmt::format("  fix: {}", diagnosis.fix));
  }
  if (!diagnosis.flight_recorder_dumps.empty()) {
    say(context, fmt::format("  NCCL flight-recorder dumps: {}{}", diagnosis.flight_recorder_dumps.front(),
                             diagnosis.flight_recorder_dumps.size() > 1
                               ? fmt::format(" and {} more", diagnosis.flight_recorder_dumps.size() - 1)
                               : std::string()));
  }
}

} // namespace lg::launch
