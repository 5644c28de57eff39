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
#include "watch/poller.hpp"

#include <fmt/format.h>

#include <fstream>
#include <optional>
#include <sstream>

namespace lg::launch {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

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
  std::optional<Clock::time_point> fatal_seen;
  std::string fatal_category;
  bool cancelled = false;
};

// Read what the job's logs gained since the last poll: live memory reports
// and early fatal signatures.
void follow_logs(Journal& journal, const AttemptState& attempt, const config::JobSpec& spec, LiveState& live,
                 const RunOptions& options, const RunContext& context)
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
    live.fatal_seen = Clock::now();
    live.fatal_category = early.category;
    say(context, fmt::format("attempt {}: {} in the logs while the job runs", attempt.number, early.category));
  }
}

} // namespace

void watch_attempt(Journal& journal, const AttemptState& attempt, const config::JobSpec& spec,
                   const RunOptions& options, const RunContext& context)
{
  watch::Poller poller(*context.client, options.schedule);
  poller.add(*attempt.job_id);
  LiveState live;
  std::string last_state = attempt.last_state;
  bool outage_reported = false;
  bool missing = false;  // Slurm answered without this job…
  Clock::time_point missing_since;  // …since then
  milliseconds delay = options.schedule.first;
  while (true) {
    nap(context, delay);
    if (context.interrupted && context.interrupted()) {
      return;
    }
    const auto result = poller.poll();
    if (result.outage && !outage_reported) {
      say(context, fmt::format("Slurm is not answering ({}); still watching", result.outage_message));
      outage_reported = true;
    } else if (!result.outage && outage_reported) {
      say(context, "Slurm answers again");
      outage_reported = false;
    }
    follow_logs(journal, attempt, spec, live, options, context);
    const auto it = result.statuses.find(*attempt.job_id);
    if (it == result.statuses.end() && !result.outage) {
      // Slurm answered but does not know the job (yet, or any more).
      if (!missing) {
        missing = true;
        missing_since = Clock::now();
      } else if (Clock::now() - missing_since >= options.vanish_after) {
        say(context, fmt::format("attempt {}: job {} is unknown to Slurm (neither squeue nor sacct) for {:.0f} s: "
                                 "it vanished",
                                 attempt.number, *attempt.job_id,
                                 std::chrono::duration<double>(Clock::now() - missing_since).count()));
        last_state = "VANISHED";
        break;
      }
    } else if (it != result.statuses.end()) {
      missing = false;
    }
    if (it != result.statuses.end()) {
      const std::string state = final_state(it->second);
      if (state != last_state) {
        journal.append("state", {{"attempt", attempt.number}, {"job_id", *attempt.job_id}, {"state", state}});
        say(context, fmt::format("attempt {}: job {} {}", attempt.number, *attempt.job_id, state));
        last_state = state;
      }
      if (slurm::is_terminal(it->second.state)) {
        break;
      }
      if (live.fatal_seen && !live.cancelled && Clock::now() - *live.fatal_seen >= options.failure_grace) {
        say(context, fmt::format("attempt {}: cancelling job {}: {} and the job is still running", attempt.number,
                                 *attempt.job_id, live.fatal_category));
        journal.append("cancel_requested", {{"attempt", attempt.number}, {"reason", live.fatal_category}});
        context.client->cancel(*attempt.job_id);
        live.cancelled = true;
      }
    }
    if (context.status) {
      context.status(fmt::format("job {} {} | max allocated {} | next check in {:.0f} s", *attempt.job_id,
                                 last_state.empty() ? "(not yet known)" : last_state,
                                 format_bytes(live.max_allocated), static_cast<double>(delay.count()) / 1000.0));
    }
    delay = poller.next_delay(result);
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
