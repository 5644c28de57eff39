#include "launch/runner.hpp"

#include "diagnose/diagnose.hpp"
#include "estimate/fixes.hpp"
#include "launch/retry.hpp"
#include "render/render.hpp"
#include "slurm/errors.hpp"
#include "util/bytes.hpp"
#include "util/error.hpp"
#include "util/fault.hpp"
#include "util/process.hpp"

#include <unistd.h>
#include "watch/job_logs.hpp"
#include "watch/log_tail.hpp"
#include "watch/memory_report.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace lg::launch {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

namespace {

void say(const RunContext& context, const std::string& line)
{
  if (context.progress) {
    context.progress(line);
  }
}

void nap(const RunContext& context, milliseconds total)
{
  // Sleep in slices so a signal is noticed within a fifth of a second.
  const milliseconds slice{200};
  for (milliseconds done{0}; done < total; done += slice) {
    if (context.interrupted && context.interrupted()) {
      return;
    }
    const milliseconds step = std::min(slice, total - done);
    if (context.sleep) {
      context.sleep(step);
    } else {
      std::this_thread::sleep_for(step);
    }
  }
}

std::string script_path(int number)
{
  return fmt::format("attempt-{}/job.sbatch", number);
}

// The job of the run's source with the fixes of the attempts so far.
config::JobSpec base_spec(const Journal& journal, const RunContext& context)
{
  for (const auto& record : journal.records()) {
    if (record.type == "run_created") {
      return context.load_source(record.data.value("source", nlohmann::json::object()));
    }
  }
  SystemError error("run '{}' has no run_created record", journal.run_id());
  throw error;
}

void prepare_attempt(Journal& journal, const config::JobSpec& spec, int number, const std::string& fix,
                     const std::string& reason, const RunContext& context)
{
  const std::string script = context.render(spec);
  journal.write_artifact(script_path(number), script);
  journal.append("attempt_prepared", {{"attempt", number},
                                      {"tag", attempt_tag(journal.run_id(), number)},
                                      {"fix", fix},
                                      {"reason", reason},
                                      {"script", script_path(number)}});
  say(context, fmt::format("attempt {}: prepared{}", number, fix.empty() ? "" : " with " + fix + " (" + reason + ")"));
}

void ensure_output_dir(const config::JobSpec& spec, const RunContext& context)
{
  // sbatch opens --output before the script runs; a missing directory makes
  // the job fail with no log at all.
  fs::path output(spec.launch.output.empty() ? "slurm-%j.out" : spec.launch.output);
  if (output.is_relative()) {
    output = context.submit_dir / output;
  }
  std::error_code ec;
  fs::create_directories(output.parent_path(), ec);
}

// The submit_started record of `attempt`, if any.
std::optional<Record> submit_started_record(const Journal& journal, int number)
{
  for (const auto& record : journal.records()) {
    if (record.type == "submit_started" && record.data.value("attempt", 0) == number) {
      return record;
    }
  }
  return std::nullopt;
}

// Look for the attempt's job by tag. When none is found but an sbatch for it
// may still be in flight (its launchguard was killed while sbatch ran; the
// orphaned sbatch can still queue the job), keep looking until that sbatch
// must have ended: on this host, while a process carries the tag on its
// command line; from another host, until the submit timeout has passed.
bool recover_by_tag(Journal& journal, const AttemptState& attempt, const RunOptions& options,
                    const RunContext& context)
{
  const auto started = submit_started_record(journal, attempt.number);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const bool same_host = started && started->data.value("host", "") == host;
  const auto since = started ? started->data.value("at", std::int64_t{0}) : std::int64_t{0};
  bool told = false;
  std::vector<slurm::JobStatus> found;
  while (true) {
    found = context.client->find_by_tag(attempt.tag);
    if (!found.empty()) {
      break;
    }
    const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch()).count();
    const bool in_flight = same_host ? process::any_process_with_argument(attempt.tag)
                                     : now < since + options.submit_timeout_seconds + 5;
    if (!in_flight || (context.interrupted && context.interrupted())) {
      return false;
    }
    if (!told) {
      say(context, fmt::format("attempt {}: an sbatch for it may still be running; waiting before "
                               "submitting again", attempt.number));
      told = true;
    }
    nap(context, milliseconds(1000));
  }
  journal.append("submitted", {{"attempt", attempt.number}, {"job_id", found.front().id}, {"recovered", true}});
  say(context, fmt::format("attempt {}: found job {} already queued (tag {}); not submitting again",
                           attempt.number, found.front().id, attempt.tag));
  return true;
}

// Wait until this driver holds the submit claim of `attempt`, or another
// driver recorded its job. Return false in the second case.
bool claim_submission(Journal& journal, const AttemptState& attempt, const RunContext& context)
{
  const std::string name = fmt::format("submit-a{:03}", attempt.number);
  bool told = false;
  while (!journal.claim(name, std::chrono::minutes(10))) {
    if (!told) {
      say(context, fmt::format("attempt {}: another launchguard is submitting it; waiting", attempt.number));
      told = true;
    }
    nap(context, milliseconds(1000));
    if (context.interrupted && context.interrupted()) {
      return false;
    }
    RunState state = fold(journal.run_id(), journal.records());
    for (const auto& a : state.attempts) {
      if (a.number == attempt.number && (a.job_id || a.finished)) {
        return false;
      }
    }
  }
  return true;
}

void submit_attempt(Journal& journal, const AttemptState& attempt, const config::JobSpec& spec,
                    const RunOptions& options, const RunContext& context)
{
  if (!claim_submission(journal, attempt, context)) {
    return;
  }
  // The claim may have been taken over from a driver that died after
  // calling sbatch: re-read whether the attempt was started.
  for (const auto& a : fold(journal.run_id(), journal.records()).attempts) {
    if (a.number == attempt.number) {
      if (a.job_id) {
        return;
      }
      if (a.submit_started && !attempt.submit_started) {
        AttemptState refreshed = a;
        submit_attempt(journal, refreshed, spec, options, context);
        return;
      }
    }
  }
  ensure_output_dir(spec, context);
  bool started = attempt.submit_started;
  std::string last_error;
  for (int attempt_try = 0; attempt_try < options.submit_tries; ++attempt_try) {
    if (context.interrupted && context.interrupted()) {
      return;
    }
    try {
      if (started && recover_by_tag(journal, attempt, options, context)) {
        return;
      }
      if (!started) {
        char host[256] = {};
        ::gethostname(host, sizeof host - 1);
        const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch()).count();
        journal.append("submit_started",
                       {{"attempt", attempt.number}, {"tag", attempt.tag}, {"host", host}, {"at", now}});
        started = true;
      }
      slurm::SubmitOptions submit;
      submit.extra_args = options.sbatch_args;
      submit.tag = attempt.tag;
      const auto id = context.client->submit_file(journal.dir() / script_path(attempt.number), submit);
      fault_point("sbatch_returned");
      journal.append("submitted", {{"attempt", attempt.number}, {"job_id", id}});
      say(context, fmt::format("attempt {}: submitted as Slurm job {}", attempt.number, id));
      return;
    } catch (const slurm::SlurmRejected& e) {
      journal.append("attempt_finished", {{"attempt", attempt.number}, {"outcome", "submit_failed"}, {"error", e.what()}});
      throw;
    } catch (const slurm::TransientSlurmError& e) {
      last_error = e.what();
      const milliseconds wait = options.submit_backoff * (1 << std::min(attempt_try, 6));
      say(context, fmt::format("attempt {}: Slurm did not answer ({}); asking again in {:.0f} s", attempt.number,
                               last_error, static_cast<double>(wait.count()) / 1000.0));
      nap(context, wait);
    }
  }
  SystemError error("Slurm did not answer after {} tries: {}", options.submit_tries, last_error);
  error.hint = fmt::format("the run is kept; 'launchguard watch {}' resumes it (it looks the job up by tag "
                           "before submitting again)",
                           journal.run_id());
  throw error;
}

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
  facts.expandable_segments_set = estimate::expandable_segments_enabled(spec);
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
  if (is_memory_failure(early.category) || early.category == "cpu_offload_with_pp") {
    live.fatal_seen = Clock::now();
    live.fatal_category = early.category;
    say(context, fmt::format("attempt {}: {} in the logs while the job runs", attempt.number, early.category));
  }
}

// Watch `attempt` until Slurm says it ended; diagnose and record the end.
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
  const char* outcome = completed ? "completed" : last_state == "VANISHED" ? "vanished" : "failed";
  journal.append("attempt_finished", {{"attempt", attempt.number}, {"outcome", outcome}, {"state", last_state}});
  say(context, fmt::format("attempt {}: {} — diagnosis: {}", attempt.number, last_state, diagnosis.category));
  if (!diagnosis.evidence.empty() && !completed) {
    const auto& e = diagnosis.evidence.front();
    say(context, fmt::format("  evidence: {}:{}: {}", e.file, e.line, e.text.substr(0, 200)));
    say(context, fmt::format("  fix: {}", diagnosis.fix));
  }
}

void finish_run(Journal& journal, const std::string& outcome, const std::string& reason, const RunContext& context)
{
  journal.append("run_finished", {{"outcome", outcome}, {"reason", reason}});
  say(context, fmt::format("run {}: {}{}", journal.run_id(), outcome, reason.empty() ? "" : " — " + reason));
}

// After an attempt ended: finish the run or prepare the next attempt.
void decide_next(Journal& journal, const RunState& state, const RunOptions& options, const RunContext& context)
{
  const AttemptState& last = state.attempts.back();
  if (last.outcome == "completed") {
    finish_run(journal, "succeeded", fmt::format("attempt {} completed", last.number), context);
    return;
  }
  if (last.outcome == "submit_failed") {
    finish_run(journal, "failed", "Slurm refused the job", context);
    return;
  }
  if (last.outcome == "vanished" && (last.category == "none" || last.category == "unknown" || last.category.empty())) {
    finish_run(journal, "failed",
               fmt::format("job {} vanished from Slurm and its logs show no cause; ask your Slurm admins "
                           "(sacct -j {})",
                           last.job_id.value_or("?"), last.job_id.value_or("?")),
               context);
    return;
  }
  const config::JobSpec spec = attempt_spec(base_spec(journal, context), state, last.number);
  RetryInput input;
  input.category = last.category;
  input.suggested_change = last.suggested_change;
  input.retry_infra = options.retry_infra || state.retry_infra;
  for (const auto& attempt : state.attempts) {
    if (!attempt.fix.empty()) {
      input.fixes_tried.push_back(attempt.fix);
    }
  }
  const RetryDecision decision = decide_retry(spec, input);
  if (decision.kind == RetryKind::none) {
    finish_run(journal, "failed", decision.reason, context);
    return;
  }
  if (static_cast<int>(state.attempts.size()) >= state.max_attempts) {
    finish_run(journal, "gave_up",
               fmt::format("{} attempt(s) used; the next would have been: {}", state.attempts.size(), decision.reason),
               context);
    return;
  }
  prepare_attempt(journal, decision.spec, last.number + 1, decision.fix, decision.reason, context);
}

} // namespace

config::JobSpec attempt_spec(const config::JobSpec& base, const RunState& state, int number)
{
  config::JobSpec spec = base;
  for (const auto& attempt : state.attempts) {
    if (attempt.number > number) {
      break;
    }
    if (attempt.number >= 2 && !attempt.fix.empty()) {
      if (auto applied = estimate::apply_fix(spec, attempt.fix)) {
        spec = std::move(applied->spec);
      }
    }
  }
  return spec;
}

void begin_run(Journal& journal, const config::JobSpec& spec, const nlohmann::json& source,
               const RunOptions& options, const RunContext& context)
{
  journal.append("run_created", {{"name", spec.name},
                                 {"source", source},
                                 {"max_attempts", options.max_attempts},
                                 {"retry_infra", options.retry_infra},
                                 {"sbatch_args", options.sbatch_args},
                                 {"submit_dir", fs::absolute(context.submit_dir).string()}});
  say(context, fmt::format("run {} created ({})", journal.run_id(), journal.dir().string()));
  prepare_attempt(journal, spec, 1, "", "first attempt", context);
}

RunOutcome drive_run(Journal& journal, const RunOptions& options, const RunContext& context)
{
  while (true) {
    if (context.interrupted && context.interrupted()) {
      return RunOutcome{false, true, false, "", "interrupted"};
    }
    RunState state = fold(journal.run_id(), journal.records());
    if (state.finished) {
      return RunOutcome{true, false, false, state.outcome, state.outcome_reason};
    }
    if (state.attempts.empty()) {
      prepare_attempt(journal, base_spec(journal, context), 1, "", "first attempt", context);
      continue;
    }
    AttemptState* current = state.current();
    if (current == nullptr) {
      decide_next(journal, state, options, context);
      continue;
    }
    const config::JobSpec spec = attempt_spec(base_spec(journal, context), state, current->number);
    if (!current->job_id) {
      submit_attempt(journal, *current, spec, options, context);
      if (options.detach && !(context.interrupted && context.interrupted())) {
        RunState after = fold(journal.run_id(), journal.records());
        if (after.current() != nullptr && after.current()->job_id) {
          return RunOutcome{false, false, true, "submitted", *after.current()->job_id};
        }
      }
      continue;
    }
    watch_attempt(journal, *current, spec, options, context);
  }
}

} // namespace lg::launch
