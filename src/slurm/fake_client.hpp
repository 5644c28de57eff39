// A Client for unit tests of launch and watch (ninja's FakeCommandRunner):
// records what was submitted, queried and cancelled, and returns scripted
// job states. No processes, no Slurm.
#pragma once

#include "slurm/client.hpp"

#include <deque>
#include <map>

namespace lg::slurm {

class FakeClient final : public Client
{
public:
  struct Submission
  {
    JobId id;
    std::string script_text;           // submit_text
    std::filesystem::path script_path; // submit_file
    SubmitOptions options;
  };

  // How the next submit fails.
  enum class SubmitFailure {
    rejected,          // SlurmRejected, nothing queued
    unreachable,       // TransientSlurmError, nothing queued
    timeout_after_queue, // TransientSlurmError, but the job WAS queued
  };

  // --- Scripting ---

  // Job `id` reports `states` on successive query() calls; the last repeats.
  void script_states(const JobId& id, std::vector<JobStatus> states);
  void script_states(const JobId& id, const std::vector<JobState>& states);

  // The next submitted job (then the one after, …) follows `states`.
  // Unscripted submissions stay PENDING.
  void script_next_submission(std::vector<JobStatus> states);
  void script_next_submission(const std::vector<JobState>& states);

  // Make the next submit fail; `message` is Slurm's reason.
  void fail_next_submit(SubmitFailure failure,
                        std::string message = "Socket timed out on send/recv "
                                              "operation");

  // Make the next `count` query() calls throw TransientSlurmError.
  void fail_next_queries(int count);

  void set_ping(bool up);

  // --- Recorded ---

  const std::vector<Submission>& submissions() const;
  // The ids asked for, one entry per query() call.
  const std::vector<std::vector<JobId>>& queries() const;
  const std::vector<JobId>& cancelled() const;

  // --- Client ---

  JobId submit_file(const std::filesystem::path& script,
                    const SubmitOptions& options) override;
  JobId submit_text(std::string_view script,
                    const SubmitOptions& options) override;
  std::vector<JobStatus> query(std::span<const JobId> ids) override;
  std::vector<JobStatus> find_by_tag(std::string_view tag) override;
  void cancel(const JobId& id) override;
  bool ping() override;

private:
  struct Script
  {
    std::vector<JobStatus> states;
    size_t next = 0;
  };

  JobId submit(Submission submission);
  JobStatus current(const JobId& id) const;
  static std::vector<JobStatus> to_statuses(const std::vector<JobState>& states);

  std::vector<Submission> m_submissions;
  std::vector<std::vector<JobId>> m_queries;
  std::vector<JobId> m_cancelled;
  std::map<JobId, Script> m_scripts;
  std::deque<std::vector<JobStatus>> m_next_scripts;
  std::optional<std::pair<SubmitFailure, std::string>> m_submit_failure;
  int m_failing_queries = 0;
  bool m_ping = true;
  long m_next_id = 1000;
};

} // namespace lg::slurm
