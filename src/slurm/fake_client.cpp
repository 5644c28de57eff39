// FakeClient: scripted Slurm for unit tests. Each query() reports a job's
// current scripted state and then moves it one step on, so a test can say
// "pending, running, out of memory" and drive watch through it poll by poll.
#include "slurm/fake_client.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace lg::slurm {

void FakeClient::script_states(const JobId& id, std::vector<JobStatus> states)
{
  m_scripts[id] = Script{std::move(states), 0};
}

void FakeClient::script_states(const JobId& id,
                               const std::vector<JobState>& states)
{
  script_states(id, to_statuses(states));
}

void FakeClient::script_next_submission(std::vector<JobStatus> states)
{
  m_next_scripts.push_back(std::move(states));
}

void FakeClient::script_next_submission(const std::vector<JobState>& states)
{
  script_next_submission(to_statuses(states));
}

void FakeClient::fail_next_submit(SubmitFailure failure, std::string message)
{
  m_submit_failure.emplace(failure, std::move(message));
}

void FakeClient::fail_next_queries(int count)
{
  m_failing_queries = count;
}

void FakeClient::set_ping(bool up)
{
  m_ping = up;
}

const std::vector<FakeClient::Submission>& FakeClient::submissions() const
{
  return m_submissions;
}

const std::vector<std::vector<JobId>>& FakeClient::queries() const
{
  return m_queries;
}

const std::vector<JobId>& FakeClient::cancelled() const
{
  return m_cancelled;
}

JobId FakeClient::submit_file(const std::filesystem::path& script,
                              const SubmitOptions& options)
{
  return submit(Submission{{}, {}, script, options});
}

JobId FakeClient::submit_text(std::string_view script,
                              const SubmitOptions& options)
{
  return submit(Submission{{}, std::string(script), {}, options});
}

JobId FakeClient::submit(Submission submission)
{
  std::optional<std::pair<SubmitFailure, std::string>> failure;
  std::swap(failure, m_submit_failure);
  if (failure && failure->first == SubmitFailure::rejected) {
    SlurmRejected error("sbatch rejected the job (exit code 1): {}",
                        failure->second);
    error.slurm_message = failure->second;
    throw error;
  }
  if (failure && failure->first == SubmitFailure::unreachable) {
    throw TransientSlurmError("sbatch: Slurm did not answer (exit code 1): {}",
                              failure->second);
  }
  submission.id = std::to_string(m_next_id++);
  if (!m_next_scripts.empty()) {
    script_states(submission.id, std::move(m_next_scripts.front()));
    m_next_scripts.pop_front();
  }
  const JobId id = submission.id;
  m_submissions.push_back(std::move(submission));
  if (failure) { // timeout_after_queue: queued, but the caller never hears
    throw TransientSlurmError("sbatch did not answer in time");
  }
  return id;
}

JobStatus FakeClient::current(const JobId& id) const
{
  JobStatus status;
  if (const auto script = m_scripts.find(id); script != m_scripts.end()
                                              && !script->second.states.empty()) {
    const auto& states = script->second.states;
    status = states[std::min(script->second.next, states.size() - 1)];
  } else {
    status.state = JobState::pending;
    status.raw_state = "PENDING";
    status.reason = "Priority";
  }
  status.id = id;
  status.source = StatusSource::fake;
  const auto submission =
    std::find_if(m_submissions.begin(),
                 m_submissions.end(),
                 [&](const Submission& entry) { return entry.id == id; });
  if (submission != m_submissions.end()) {
    if (status.name.empty()) {
      status.name = submission->options.job_name;
    }
    if (status.comment.empty()) {
      status.comment = submission->options.tag;
    }
  }
  return status;
}

std::vector<JobStatus> FakeClient::query(std::span<const JobId> ids)
{
  m_queries.emplace_back(ids.begin(), ids.end());
  if (m_failing_queries > 0) {
    --m_failing_queries;
    throw TransientSlurmError(
      "sacct: Slurm did not answer (exit code 1): Socket timed out on "
      "send/recv operation");
  }
  std::vector<JobStatus> result;
  for (const auto& id : ids) {
    const bool submitted =
      std::any_of(m_submissions.begin(),
                  m_submissions.end(),
                  [&](const Submission& entry) { return entry.id == id; });
    auto script = m_scripts.find(id);
    if (!submitted && script == m_scripts.end()) {
      continue; // Slurm does not know this id
    }
    result.push_back(current(id));
    if (script != m_scripts.end()) {
      ++script->second.next;
    }
  }
  return result;
}

std::vector<JobStatus> FakeClient::find_by_tag(std::string_view tag)
{
  std::vector<JobStatus> result;
  for (const auto& submission : m_submissions) {
    if (submission.options.tag.find(tag) != std::string::npos
        || submission.options.job_name.find(tag) != std::string::npos) {
      result.push_back(current(submission.id));
    }
  }
  return result;
}

void FakeClient::cancel(const JobId& id)
{
  m_cancelled.push_back(id);
  JobStatus cancelled = current(id);
  cancelled.state = JobState::cancelled;
  cancelled.raw_state = "CANCELLED by 0";
  script_states(id, std::vector<JobStatus>{cancelled});
}

bool FakeClient::ping()
{
  return m_ping;
}

std::vector<JobStatus> FakeClient::to_statuses(
  const std::vector<JobState>& states)
{
  std::vector<JobStatus> result;
  for (const auto state : states) {
    JobStatus status;
    status.state = state;
    status.raw_state = std::string(to_string(state));
    if (is_terminal(state)) {
      status.exit = ExitStatus{state == JobState::completed ? 0 : 1, 0};
    }
    result.push_back(std::move(status));
  }
  return result;
}

} // namespace lg::slurm
