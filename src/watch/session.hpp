// One watch session: the loop that follows Slurm jobs to their end, used by
// `watch JOB_ID…`, `watch RUN_ID` and `submit`. Each job backs off on its
// own schedule: the first check comes soon after submission, the interval
// grows while the job's state stays the same and drops back when it changes,
// and a change on one job leaves the others' intervals alone. A cycle asks
// Slurm once about every watched job (per-job squeue loops are what floods
// slurmctld), so the command count follows the most urgent job, not the
// number of jobs. A transient Slurm error or an answer without a job is
// "unknown, ask again"; a job Slurm stops knowing for `vanish_after` (while
// it answers) has vanished. The clock is injected, so tests run hours of
// schedule in no time.
#pragma once

#include "slurm/job_status.hpp"
#include "watch/clock.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace lg::watch {

using std::chrono::milliseconds;

struct PollSchedule
{
  milliseconds first{std::chrono::seconds(3)};  // after submission
  milliseconds min{std::chrono::seconds(5)};    // after a change
  milliseconds max{std::chrono::seconds(120)};  // when idle
  double factor = 1.6;                          // growth while idle
};

struct SessionOptions
{
  PollSchedule schedule;
  // A job unknown to Slurm (neither squeue nor sacct) this long has vanished.
  milliseconds vanish_after{std::chrono::minutes(10)};
  // Wake at least this often between Slurm checks (log following; no Slurm
  // command); 0: only for Slurm checks.
  milliseconds tick{0};
};

// What one cycle learned about one job.
struct JobUpdate
{
  slurm::JobId id;
  slurm::JobStatus status;  // Slurm's answer (empty for a vanished job)
  bool changed = false;     // its state differs from the previous answer
  bool ended = false;       // terminal (or vanished): the session dropped it
  bool vanished = false;    // unknown to Slurm for vanish_after
  milliseconds missing_for{0};  // how long Slurm has not known it (vanished)
};

struct Cycle
{
  bool polled = false;         // Slurm was asked in this cycle
  bool outage = false;         // …and did not answer
  bool outage_changed = false; // Slurm stopped or started answering
  std::string outage_message;
  std::vector<JobUpdate> updates;  // jobs Slurm answered for, or that vanished
  milliseconds next_poll{0};       // until the next Slurm check
};

// Slurm's statuses, and how old they are: 0 when just asked, more when a
// poll cache shared with other processes served another's answer.
struct QueryAnswer
{
  // NOLINTNEXTLINE(google-explicit-constructor): Slurm's own statuses are a fresh answer
  QueryAnswer(std::vector<slurm::JobStatus> jobs = {}, milliseconds how_old = milliseconds(0))
    : statuses(std::move(jobs)),
      age(how_old)
  {
  }
  std::vector<slurm::JobStatus> statuses;
  milliseconds age{0};
};

// Ask Slurm about `ids`; an answer younger than `max_age` will do (a shared
// poll cache may serve it). Omits ids Slurm does not know; throws
// slurm::TransientSlurmError when Slurm does not answer.
using QueryFn = std::function<QueryAnswer(std::span<const slurm::JobId> ids, milliseconds max_age)>;

// How old an answer may be and still be news to every due job, one job
// per entry in `answered`: the time (on the session's clock) of the answer
// its schedule counts from. An answer younger than that tells the job
// something it has not seen, whichever process asked for it and whenever;
// `margin` keeps the very answer a schedule counts from, aged by another
// clock, from passing for a new one. 0 (ask now) for no entry.
milliseconds acceptable_age(std::span<const Clock::time_point> answered, Clock::time_point now, milliseconds margin);

class Session
{
public:
  Session(QueryFn query, Clock& clock, SessionOptions options);

  void add(const slurm::JobId& id);
  void remove(const slurm::JobId& id);
  std::vector<slurm::JobId> jobs() const;

  enum class End { no_jobs, interrupted, stopped };

  // The loop: sleep until the next job is due (or the next tick), ask Slurm
  // once, hand the cycle to `on_cycle`; until no job is left, `interrupted`
  // says so (checked every 200 ms of sleep) or `on_cycle` returns false.
  End run(const std::function<bool(const Cycle&)>& on_cycle, const std::function<bool()>& interrupted = {});

  // One cycle, now, without sleeping (run() calls it when a job is due).
  Cycle poll();

  // Until the next job is due.
  milliseconds until_due() const;

  // This job's current interval (tests, status line).
  milliseconds interval(const slurm::JobId& id) const;

  // Slurm questions asked so far (one per polling cycle).
  long queries() const { return m_queries; }

  Clock& clock() const { return m_clock; }

private:
  struct Watched
  {
    std::string last_state;  // "" before the first answer
    milliseconds delay{0};
    Clock::time_point answered;  // the answer this schedule counts from (added: when added)
    Clock::time_point due;       // answered + delay
    bool missing = false;
    Clock::time_point missing_since;
    bool settling = false;  // ended per squeue; one more look for accounting
  };

  QueryFn m_query;
  Clock& m_clock;
  SessionOptions m_options;
  std::map<slurm::JobId, Watched> m_jobs;
  std::vector<slurm::JobId> m_order;  // as added
  bool m_outage = false;
  long m_queries = 0;
};

} // namespace lg::watch
