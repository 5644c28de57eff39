#include "launch/run_state.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace lg::launch {

std::string to_string(RunResult result)
{
  switch (result) {
  case RunResult::succeeded: return "succeeded";
  case RunResult::failed: return "failed";
  case RunResult::gave_up: return "gave_up";
  }
  return "failed";
}

std::string to_string(AttemptResult result)
{
  switch (result) {
  case AttemptResult::completed: return "completed";
  case AttemptResult::failed: return "failed";
  case AttemptResult::vanished: return "vanished";
  case AttemptResult::cancelled: return "cancelled";
  case AttemptResult::submit_failed: return "submit_failed";
  }
  return "failed";
}

std::string to_string(const std::optional<RunResult>& result)
{
  return result ? to_string(*result) : std::string();
}

std::string to_string(const std::optional<AttemptResult>& result)
{
  return result ? to_string(*result) : std::string();
}

std::optional<RunResult> parse_run_result(std::string_view text)
{
  for (const auto r : {RunResult::succeeded, RunResult::failed, RunResult::gave_up}) {
    if (text == to_string(r)) {
      return r;
    }
  }
  return std::nullopt;
}

std::optional<AttemptResult> parse_attempt_result(std::string_view text)
{
  for (const auto r : {AttemptResult::completed, AttemptResult::failed, AttemptResult::vanished,
                       AttemptResult::cancelled, AttemptResult::submit_failed}) {
    if (text == to_string(r)) {
      return r;
    }
  }
  return std::nullopt;
}

AttemptState* RunState::current()
{
  if (!attempts.empty() && !attempts.back().finished) {
    return &attempts.back();
  }
  return nullptr;
}

std::string attempt_tag(const std::string& run_id, int number)
{
  // Zero-padded so that no tag is a prefix of another (find_by_tag matches
  // substrings of the job comment).
  return fmt::format("lg-{}-a{:03}", run_id, number);
}

namespace {

AttemptState* find_attempt(RunState& state, const nlohmann::json& data)
{
  const int number = data.value("attempt", 0);
  for (auto& attempt : state.attempts) {
    if (attempt.number == number) {
      return &attempt;
    }
  }
  return nullptr;
}

void apply(RunState& state, const Record& record)
{
  const auto& d = record.data;
  if (record.type == "run_created") {
    state.name = d.value("name", "");
    state.max_attempts = d.value("max_attempts", 1);
    state.retry_infra = d.value("retry_infra", false);
    return;
  }
  if (record.type == "attempt_prepared") {
    // Two drivers of one run (two login nodes, or a watch started while the
    // submit still ran) may both prepare the next attempt: the first wins.
    if (find_attempt(state, d) != nullptr) {
      return;
    }
    AttemptState attempt;
    attempt.number = d.value("attempt", static_cast<int>(state.attempts.size()) + 1);
    attempt.tag = d.value("tag", attempt_tag(state.run_id, attempt.number));
    attempt.fix = d.value("fix", "");
    attempt.reason = d.value("reason", "");
    attempt.exclude = d.value("exclude", std::vector<std::string>{});
    state.attempts.push_back(attempt);
    return;
  }
  if (record.type == "run_finished") {
    if (state.finished) {
      return;  // a second driver's verdict; the first stands
    }
    state.finished = true;
    state.outcome = parse_run_result(d.value("outcome", ""));
    state.outcome_reason = d.value("reason", "");
    return;
  }
  AttemptState* attempt = find_attempt(state, d);
  if (attempt == nullptr) {
    return;
  }
  if (record.type == "submit_started") {
    attempt->submit_started = true;
  } else if (record.type == "submitted") {
    if (attempt->job_id) {
      return;  // recorded twice (a second driver recovered it by tag)
    }
    attempt->job_id = d.value("job_id", "");
    attempt->last_state = watch::ObservedState::submitted();
  } else if (record.type == "state") {
    attempt->last_state = watch::parse_observed_state(d.value("state", ""));
  } else if (record.type == "diagnosis") {
    attempt->category = d.value("category", "");
    attempt->diagnosis_fix = d.value("fix", "");
    attempt->suggested_change = d.value("suggested_change", "");
    attempt->host = d.value("host", "");
  } else if (record.type == "memory") {
    attempt->max_allocated_bytes = std::max(attempt->max_allocated_bytes, d.value("max_allocated_bytes", 0.0));
  } else if (record.type == "attempt_finished") {
    if (attempt->finished) {
      return;
    }
    attempt->finished = true;
    attempt->outcome = parse_attempt_result(d.value("outcome", ""));
    if (d.contains("state")) {
      attempt->last_state = watch::parse_observed_state(d.value("state", ""));
    }
  }
}

} // namespace

RunState fold(const std::string& run_id, const std::vector<Record>& records)
{
  RunState state;
  state.run_id = run_id;
  for (const auto& record : records) {
    apply(state, record);
  }
  return state;
}

} // namespace lg::launch
