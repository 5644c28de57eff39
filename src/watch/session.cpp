#include "watch/session.hpp"

#include "slurm/errors.hpp"

#include <algorithm>

namespace lg::watch {

namespace {

// The same answer judged twice (its age read by another process's wall
// clock, its time kept on this one's steady clock) differs by milliseconds.
constexpr milliseconds k_same_answer_margin{250};

std::string state_word(const slurm::JobStatus& status)
{
  // A step killed by the cgroup OOM handler usually leaves the job FAILED.
  return std::string(slurm::to_string(status.out_of_memory() ? slurm::JobState::out_of_memory : status.state));
}

} // namespace

milliseconds acceptable_age(std::span<const Clock::time_point> answered, Clock::time_point now, milliseconds margin)
{
  if (answered.empty()) {
    return milliseconds(0);
  }
  const auto newest = *std::max_element(answered.begin(), answered.end());
  const auto age = std::chrono::duration_cast<milliseconds>(now - newest) - margin;
  return std::max(age, milliseconds(0));
}

Session::Session(QueryFn query, Clock& clock, SessionOptions options)
  : m_query(std::move(query)),
    m_clock(clock),
    m_options(options)
{
}

void Session::add(const slurm::JobId& id)
{
  if (m_jobs.count(id) != 0) {
    return;
  }
  Watched watched;
  watched.delay = m_options.schedule.first;
  watched.answered = m_clock.now();
  watched.due = watched.answered + watched.delay;
  m_jobs.emplace(id, watched);
  m_order.push_back(id);
}

void Session::remove(const slurm::JobId& id)
{
  m_jobs.erase(id);
  m_order.erase(std::remove(m_order.begin(), m_order.end(), id), m_order.end());
}

std::vector<slurm::JobId> Session::jobs() const
{
  return m_order;
}

milliseconds Session::until_due() const
{
  if (m_jobs.empty()) {
    return milliseconds(0);
  }
  auto due = Clock::time_point::max();
  for (const auto& [id, watched] : m_jobs) {
    due = std::min(due, watched.due);
  }
  const auto now = m_clock.now();
  return due <= now ? milliseconds(0) : std::chrono::duration_cast<milliseconds>(due - now);
}

milliseconds Session::interval(const slurm::JobId& id) const
{
  const auto it = m_jobs.find(id);
  return it == m_jobs.end() ? milliseconds(0) : it->second.delay;
}

Cycle Session::poll()
{
  Cycle cycle;
  if (m_jobs.empty()) {
    return cycle;
  }
  const auto now = m_clock.now();
  const auto& schedule = m_options.schedule;
  // Each schedule counts from the answer it was set by (`answered`), not
  // from when this process read it: processes sharing a poll cache then
  // keep the times of the shared answers, and one question serves them all.
  Clock::time_point answered = now;
  auto schedule_in = [&](Watched& watched, milliseconds delay) {
    watched.delay = delay;
    watched.answered = std::max(watched.answered, answered);
    watched.due = watched.answered + delay;
  };
  auto grow = [&](Watched& watched) {
    const auto grown = milliseconds(static_cast<long long>(static_cast<double>(watched.delay.count()) * schedule.factor));
    schedule_in(watched, std::clamp(grown, schedule.min, std::max(schedule.min, schedule.max)));
  };
  // Any answer younger than the one a due job's schedule counts from is
  // news to it (a poll cache shared by other launchguard processes may have
  // it).
  std::vector<Clock::time_point> due_from;
  for (const auto& [id, watched] : m_jobs) {
    if (watched.due <= now) {
      due_from.push_back(watched.answered);
    }
  }
  const milliseconds max_age = acceptable_age(due_from, now, k_same_answer_margin);
  cycle.polled = true;
  ++m_queries;
  const std::vector<slurm::JobId> ids = m_order;
  std::vector<slurm::JobStatus> answers;
  try {
    QueryAnswer answer = m_query(ids, max_age);
    answers = std::move(answer.statuses);
    answered = m_clock.now() - answer.age;
  } catch (const slurm::TransientSlurmError& e) {
    cycle.outage = true;
    cycle.outage_message = e.what();
    cycle.outage_changed = !m_outage;
    m_outage = true;
    for (auto& [id, watched] : m_jobs) {
      if (watched.due <= now) {
        grow(watched);
      }
    }
    cycle.next_poll = until_due();
    return cycle;
  }
  cycle.outage_changed = m_outage;
  m_outage = false;
  for (const auto& id : ids) {
    Watched& watched = m_jobs.at(id);
    const bool was_due = watched.due <= now;
    const auto answer = std::find_if(answers.begin(), answers.end(),
                                     [&](const slurm::JobStatus& status) { return status.id == id; });
    JobUpdate update;
    update.id = id;
    if (answer == answers.end()) {
      // Slurm answered without this job: not queued yet, or gone.
      if (!watched.missing) {
        watched.missing = true;
        watched.missing_since = now;
      }
      update.missing_for = std::chrono::duration_cast<milliseconds>(now - watched.missing_since);
      if (update.missing_for >= m_options.vanish_after) {
        update.vanished = true;
        update.ended = true;
        update.changed = true;
        cycle.updates.push_back(std::move(update));
        remove(id);
        continue;
      }
      if (was_due) {
        grow(watched);
      }
      watched.due = std::min(watched.due, watched.missing_since + m_options.vanish_after);
      continue;
    }
    watched.missing = false;
    update.status = *answer;
    const std::string state = state_word(*answer);
    update.changed = state != watched.last_state;
    watched.last_state = state;
    if (slurm::is_terminal(answer->state)) {
      if (answer->source == slurm::StatusSource::squeue && !watched.settling) {
        // squeue knows no exit codes and no steps: one more look, soon, for
        // the accounting record.
        watched.settling = true;
        schedule_in(watched, schedule.first);
      } else {
        update.ended = true;
      }
    } else if (update.changed) {
      schedule_in(watched, schedule.min);
    } else if (was_due) {
      grow(watched);
    }
    const bool ended = update.ended;
    cycle.updates.push_back(std::move(update));
    if (ended) {
      remove(id);
    }
  }
  cycle.next_poll = until_due();
  return cycle;
}

Session::End Session::run(const std::function<bool(const Cycle&)>& on_cycle, const std::function<bool()>& interrupted)
{
  const milliseconds slice{200};
  while (!m_jobs.empty()) {
    milliseconds wait = until_due();
    if (m_options.tick > milliseconds(0)) {
      wait = std::min(wait, m_options.tick);
    }
    for (milliseconds slept{0};; slept += slice) {
      if (interrupted && interrupted()) {
        return End::interrupted;
      }
      if (slept >= wait) {
        break;
      }
      m_clock.sleep(std::min(slice, wait - slept));
    }
    Cycle cycle;
    if (until_due() == milliseconds(0)) {
      cycle = poll();
    } else {
      cycle.next_poll = until_due();
    }
    if (!on_cycle(cycle)) {
      return End::stopped;
    }
  }
  return End::no_jobs;
}

} // namespace lg::watch
