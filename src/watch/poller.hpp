// Batched, backing-off polling of Slurm job states. One Slurm command per
// cycle for every watched job, however many (launchers.md §3: per-job
// squeue loops are what floods slurmctld). The first check comes soon after
// submission; while nothing changes the interval grows to minutes; a change
// brings it back down. A transient Slurm error or an empty answer is
// "unknown, ask again", never a failure.
#pragma once

#include "slurm/client.hpp"

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace lg::watch {

struct PollSchedule
{
  std::chrono::milliseconds first{std::chrono::seconds(3)};   // after submission
  std::chrono::milliseconds min{std::chrono::seconds(5)};     // after a change
  std::chrono::milliseconds max{std::chrono::seconds(120)};   // when idle
  double factor = 1.6;                                        // growth while idle
};

struct PollResult
{
  std::map<std::string, slurm::JobStatus> statuses;  // jobs Slurm reported
  bool changed = false;   // some watched job changed state since last poll
  bool outage = false;    // Slurm did not answer (transient error)
  std::string outage_message;
};

class Poller
{
public:
  Poller(slurm::Client& client, PollSchedule schedule);

  void add(const std::string& job_id);
  void remove(const std::string& job_id);
  const std::vector<std::string>& jobs() const { return m_jobs; }

  // Ask Slurm once about every watched job.
  PollResult poll();

  // How long to wait before the next poll, given the last result.
  std::chrono::milliseconds next_delay(const PollResult& last);

  // Slurm commands issued so far (one per poll()).
  long commands() const { return m_commands; }

private:
  slurm::Client& m_client;
  PollSchedule m_schedule;
  std::vector<std::string> m_jobs;
  std::map<std::string, std::string> m_last_state;
  std::chrono::milliseconds m_delay;
  long m_commands = 0;
};

} // namespace lg::watch
