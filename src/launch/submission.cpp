// Submitting an attempt exactly once. See ARCHITECTURE.md ("The run
// journal") for why each step is recorded before the next.
#include "launch/runner_steps.hpp"

#include "slurm/errors.hpp"
#include "util/error.hpp"
#include "util/fault.hpp"
#include "util/private_files.hpp"
#include "util/process.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <optional>

namespace lg::launch {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

namespace {

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
  const bool same_host = started && started->data.value("host", "") == process::host_name();
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

} // namespace

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
  // Any doubt about the attempt means asking Slurm first: its submit_started
  // record, or a damaged record that may have been it (or its submitted).
  int damaged = 0;
  journal.records(&damaged);
  bool maybe_queued = attempt.submit_started || damaged > 0;
  std::string last_error;
  for (int attempt_try = 0; attempt_try < options.submit_tries; ++attempt_try) {
    if (context.interrupted && context.interrupted()) {
      return;
    }
    try {
      if (maybe_queued && recover_by_tag(journal, attempt, options, context)) {
        return;
      }
      if (!submit_started_record(journal, attempt.number)) {
        const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch()).count();
        journal.append("submit_started",
                       {{"attempt", attempt.number}, {"tag", attempt.tag}, {"host", process::host_name()}, {"at", now}});
      }
      maybe_queued = true;
      slurm::SubmitOptions submit;
      submit.extra_args = options.sbatch_args;
      submit.tag = attempt.tag;
      // The script is submitted under the user's account: refuse one that
      // someone else could have swapped.
      const fs::path script = journal.dir() / script_path(attempt.number);
      private_files::require_private(script.parent_path(), "the attempt directory");
      private_files::require_private(script, "the attempt's batch script");
      const auto id = context.client->submit_file(script, submit);
      fault_point("sbatch_returned");
      journal.append("submitted", {{"attempt", attempt.number}, {"job_id", id}});
      say(context, fmt::format("attempt {}: submitted as Slurm job {}", attempt.number, id));
      return;
    } catch (const slurm::SlurmRejected& e) {
      journal.append("attempt_finished", {{"attempt", attempt.number}, {"outcome", to_string(AttemptResult::submit_failed)}, {"error", e.what()}});
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

} // namespace lg::launch
