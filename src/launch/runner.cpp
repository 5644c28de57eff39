// Driving a run: the state machine over the journal. The steps it calls
// live in submission.cpp and attempt_watch.cpp.
#include "launch/runner.hpp"

#include "preflight/fixes.hpp"
#include "launch/job_script.hpp"
#include "launch/job_source.hpp"
#include "diagnose/category.hpp"
#include "launch/retry.hpp"
#include "launch/runner_steps.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace lg::launch {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

void say(const RunContext& context, const std::string& line)
{
  if (context.progress) {
    context.progress(line);
  }
}

watch::Clock& clock_of(const RunContext& context)
{
  return context.clock != nullptr ? *context.clock : watch::Clock::real();
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
    clock_of(context).sleep(step);
  }
}

std::string script_path(int number)
{
  return fmt::format("attempt-{}/job.sbatch", number);
}

namespace {

// The job of the run's source with the fixes of the attempts so far.
config::JobSpec base_spec(const Journal& journal, const RunContext& context)
{
  for (const auto& record : journal.records()) {
    if (record.type == "run_created") {
      const auto source = record.data.value("source", nlohmann::json::object());
      return context.load_source ? context.load_source(source) : load_job_source(source);
    }
  }
  SystemError error("run '{}' has no run_created record", journal.run_id());
  throw error;
}

void prepare_attempt(Journal& journal, const config::JobSpec& spec, int number, const std::string& fix,
                     const std::string& reason, const RunContext& context,
                     const std::vector<std::string>& exclude = {})
{
  const std::string script = context.render ? context.render(spec) : render_job_script(spec, context.template_dirs);
  journal.write_artifact(script_path(number), script);
  journal.append("attempt_prepared", {{"attempt", number},
                                      {"tag", attempt_tag(journal.run_id(), number)},
                                      {"fix", fix},
                                      {"reason", reason},
                                      {"exclude", exclude},
                                      {"script", script_path(number)}});
  say(context, fmt::format("attempt {}: prepared{}", number,
                           !fix.empty() ? " with " + fix + " (" + reason + ")"
                           : number > 1 ? " (" + reason + ")"
                                        : std::string()));
}

void finish_run(Journal& journal, RunResult result, const std::string& reason, const RunContext& context)
{
  const std::string outcome = to_string(result);
  journal.append("run_finished", {{"outcome", outcome}, {"reason", reason}});
  say(context, fmt::format("run {}: {}{}", journal.run_id(), outcome, reason.empty() ? "" : " — " + reason));
}

// After an attempt ended: finish the run or prepare the next attempt.
void decide_next(Journal& journal, const RunState& state, const RunOptions& options, const RunContext& context)
{
  const AttemptState& last = state.attempts.back();
  if (last.outcome == AttemptResult::completed) {
    finish_run(journal, RunResult::succeeded, fmt::format("attempt {} completed", last.number), context);
    return;
  }
  if (last.outcome == AttemptResult::submit_failed) {
    finish_run(journal, RunResult::failed, "Slurm refused the job", context);
    return;
  }
  if (last.outcome == AttemptResult::vanished && (!diagnose::is_failure(last.category) || last.category == diagnose::to_string(diagnose::Category::unknown))) {
    finish_run(journal, RunResult::failed,
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
  input.slurm_state = last.last_state.state;  // unknown unless Slurm said it
  input.host = last.host;
  input.excluded = last.exclude;
  for (const auto& attempt : state.attempts) {
    if (!attempt.fix.empty()) {
      input.fixes_tried.push_back(attempt.fix);
    }
    if (attempt.number != last.number) {
      input.earlier_categories.push_back(attempt.category);
    }
  }
  const RetryDecision decision = decide_retry(spec, input);
  if (decision.kind == RetryKind::none) {
    finish_run(journal, RunResult::failed, decision.reason, context);
    return;
  }
  if (static_cast<int>(state.attempts.size()) >= state.max_attempts) {
    finish_run(journal, RunResult::gave_up,
               fmt::format("{} attempt(s) used; the next would have been: {}", state.attempts.size(), decision.reason),
               context);
    return;
  }
  prepare_attempt(journal, decision.spec, last.number + 1, decision.fix, decision.reason, context, decision.exclude);
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
      if (auto applied = preflight::apply_fix(spec, attempt.fix)) {
        spec = std::move(applied->spec);
      }
    }
    if (attempt.number == number) {
      spec = with_excluded_nodes(std::move(spec), {}, attempt.exclude);
    }
  }
  return spec;
}

void begin_run(Journal& journal, const config::JobSpec& spec, const nlohmann::json& source,
               const RunOptions& options, const RunContext& context)
{
  journal.append("run_created", {{"name", spec.name},
                                 {"source", source.is_object() ? source : nlohmann::json::object()},
                                 {"max_attempts", options.max_attempts},
                                 {"retry_infra", options.retry_infra},
                                 {"sbatch_args", options.sbatch_args},
                                 {"hang_floor_s", std::chrono::duration<double>(options.hang.floor).count()},
                                 {"hang_grace_s", std::chrono::duration<double>(options.hang_grace).count()},
                                 {"hang_cancel", options.hang_cancel},
                                 {"submit_dir", fs::absolute(context.submit_dir).string()}});
  say(context, fmt::format("run {} created ({})", journal.run_id(), journal.dir().string()));
  prepare_attempt(journal, spec, 1, "", "first attempt", context);
}

void read_hang_options(const nlohmann::json& run_created, RunOptions& options)
{
  const auto seconds = [](double s) { return std::chrono::milliseconds(static_cast<long long>(s * 1000)); };
  const double floor_s = run_created.value("hang_floor_s", -1.0);
  const double grace_s = run_created.value("hang_grace_s", -1.0);
  if (floor_s >= 1 && floor_s <= 86400) {
    options.hang.floor = seconds(floor_s);
  }
  if (grace_s >= 0 && grace_s <= 86400) {
    options.hang_grace = seconds(grace_s);
  }
  options.hang_cancel = run_created.value("hang_cancel", options.hang_cancel);
}

RunOutcome drive_run(Journal& journal, const RunOptions& options, const RunContext& context)
{
  while (true) {
    if (context.interrupted && context.interrupted()) {
      return RunOutcome{false, true, false, std::nullopt, "interrupted"};
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
          return RunOutcome{false, false, true, std::nullopt, *after.current()->job_id};
        }
      }
      continue;
    }
    watch_attempt(journal, *current, spec, options, context);
  }
}

} // namespace lg::launch
