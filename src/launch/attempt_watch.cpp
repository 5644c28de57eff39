// Following an attempt to its end: batched polls, log tails, live memory
// reports, early cancel on a fatal log line, the final diagnosis.
#include "launch/runner_steps.hpp"

#include "diagnose/category.hpp"
#include "diagnose/diagnose.hpp"
#include "preflight/judge.hpp"
#include "launch/retry.hpp"
#include "render/render.hpp"
#include "util/bytes.hpp"
#include "watch/job_logs.hpp"
#include "watch/log_tail.hpp"
#include "watch/memory_report.hpp"
#include "watch/session.hpp"

#include <fmt/format.h>

#include <fstream>
#include <optional>
#include <sstream>

namespace lg::launch {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

namespace {

std::string final_state(const slurm::JobStatus& status)
{
  // A step killed by the cgroup OOM handler usually leaves the job FAILED.
  if (status.out_of_memory()) {
    return "OUT_OF_MEMORY";
  }
  return std::string(slurm::to_string(status.state));
}

std::vector<std::string> read_logs(const std::vector<fs::path>& files)
{
  std::vector<std::string> texts;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    texts.push_back(buffer.str());
  }
  return texts;
}

diagnose::Diagnosis diagnose_attempt(const config::JobSpec& spec, const std::string& job_id,
                                     const std::string& state, const RunContext& context)
{
  const auto files = watch::job_log_files(spec.launch.output, render::sanitize_job_name(spec.name), job_id,
                                          context.submit_dir);
  const auto texts = read_logs(files);
  std::vector<diagnose::LogFile> logs;
  for (std::size_t i = 0; i < files.size(); ++i) {
    logs.push_back(diagnose::LogFile{files[i].string(), texts[i]});
  }
  diagnose::Context facts;
  facts.slurm_state = state;
  facts.expandable_segments_set = preflight::expandable_segments_on(spec);
  return diagnose::diagnose(logs, *context.matcher, facts);
}

struct LiveState
{
  watch::LogTail tail;
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
  LiveState live;
  std::string last_state = attempt.last_state;
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
          last_state = "VANISHED";
          continue;
        }
        const std::string state = final_state(update.status);
        if (state != last_state) {
          journal.append("state", {{"attempt", attempt.number}, {"job_id", job_id}, {"state", state}});
          say(context, fmt::format("attempt {}: job {} {}", attempt.number, job_id, state));
          last_state = state;
        }
      }
      if (ended) {
        return false;
      }
      if (live.fatal_seen && !live.cancelled && clock.now() - *live.fatal_seen >= options.failure_grace) {
        say(context, fmt::format("attempt {}: cancelling job {}: {} and the job is still running", attempt.number,
                                 job_id, live.fatal_category));
        journal.append("cancel_requested", {{"attempt", attempt.number}, {"reason", live.fatal_category}});
        context.client->cancel(job_id);
        live.cancelled = true;
      }
      if (context.status) {
        context.status(fmt::format("job {} {} | max allocated {} | next check in {:.0f} s", job_id,
                                   last_state.empty() ? "(not yet known)" : last_state,
                                   format_bytes(live.max_allocated),
                                   static_cast<double>(cycle.next_poll.count()) / 1000.0));
      }
      return true;
    },
    context.interrupted);
  if (end == watch::Session::End::interrupted) {
    return;
  }
  const auto diagnosis = diagnose_attempt(spec, *attempt.job_id, last_state, context);
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
                               {"evidence", evidence}});
  const bool completed = last_state == "COMPLETED";
  const std::string outcome = to_string(completed                  ? AttemptResult::completed
                                        : last_state == "VANISHED" ? AttemptResult::vanished
                                                                   : AttemptResult::failed);
  journal.append("attempt_finished", {{"attempt", attempt.number}, {"outcome", outcome}, {"state", last_state}});
  say(context, fmt::format("attempt {}: {} — diagnosis: {}", attempt.number, last_state, diagnosis.category));
  if (!diagnosis.evidence.empty() && !completed) {
    const auto& e = diagnosis.evidence.front();
    say(context, fmt::format("  evidence: {}:{}: {}", e.file, e.line, e.text.substr(0, 200)));
    say(context, fmt::format("  fix: {}", diagnosis.fix));
  }
}

} // namespace lg::launch
