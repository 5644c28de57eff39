#include "watch/poller.hpp"

#include "slurm/errors.hpp"

#include <algorithm>

namespace lg::watch {

Poller::Poller(slurm::Client& client, PollSchedule schedule)
  : m_client(client),
    m_schedule(schedule),
    m_delay(schedule.first)
{
}

void Poller::add(const std::string& job_id)
{
  if (std::find(m_jobs.begin(), m_jobs.end(), job_id) == m_jobs.end()) {
    m_jobs.push_back(job_id);
    m_delay = m_schedule.first;
  }
}

void Poller::remove(const std::string& job_id)
{
  m_jobs.erase(std::remove(m_jobs.begin(), m_jobs.end(), job_id), m_jobs.end());
  m_last_state.erase(job_id);
}

PollResult Poller::poll()
{
  PollResult result;
  if (m_jobs.empty()) {
    return result;
  }
  ++m_commands;
  try {
    for (auto& status : m_client.query(m_jobs)) {
      const std::string state(slurm::to_string(status.state));
      auto& last = m_last_state[status.id];
      if (last != state) {
        result.changed = true;
        last = state;
      }
      result.statuses[status.id] = std::move(status);
    }
  } catch (const slurm::TransientSlurmError& e) {
    result.outage = true;
    result.outage_message = e.what();
  }
  return result;
}

std::chrono::milliseconds Poller::next_delay(const PollResult& last)
{
  if (last.changed) {
    m_delay = m_schedule.min;
  } else {
    const auto grown = std::chrono::milliseconds(
      static_cast<long long>(static_cast<double>(m_delay.count()) * m_schedule.factor));
    m_delay = std::clamp(grown, m_schedule.min, m_schedule.max);
  }
  return m_delay;
}

} // namespace lg::watch
