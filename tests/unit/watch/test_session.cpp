// The one watch session (watch/session.hpp) on an injected clock: its
// backoff schedule, per-job intervals, --vanish-after, outages. Slurm is a
// map of states the test sets; the clock moves only when the session sleeps.
#include "slurm/errors.hpp"
#include "slurm/fake_client.hpp"
#include "watch/session.hpp"

#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <utility>
#include <vector>

using namespace std::chrono_literals;
using lg::slurm::JobState;
using lg::watch::milliseconds;

namespace {

struct FakeSlurm
{
  std::map<std::string, JobState> states;  // what Slurm knows
  int failing = 0;                         // next queries that time out
  std::vector<milliseconds> asked_at;      // clock time of each query
  lg::watch::ManualClock clock;
  lg::watch::Clock::time_point start = clock.now();

  lg::watch::QueryFn query()
  {
    return [this](std::span<const lg::slurm::JobId> ids, milliseconds) {
      asked_at.push_back(std::chrono::duration_cast<milliseconds>(clock.now() - start));
      if (failing > 0) {
        --failing;
        throw lg::slurm::TransientSlurmError("sacct: Socket timed out on send/recv operation");
      }
      std::vector<lg::slurm::JobStatus> out;
      for (const auto& id : ids) {
        if (const auto it = states.find(id); it != states.end()) {
          lg::slurm::JobStatus status;
          status.id = id;
          status.state = it->second;
          out.push_back(status);
        }
      }
      return out;
    };
  }
};

lg::watch::SessionOptions options(milliseconds vanish_after = 10min)
{
  lg::watch::SessionOptions o;
  o.vanish_after = vanish_after;
  return o;  // first 3 s, min 5 s, max 120 s, factor 1.6
}

// A session over a FakeSlurm, watching `jobs` in order: each with the state
// Slurm reports for it, or none for a job Slurm does not know.
struct WatchedJobs
{
  FakeSlurm slurm;
  lg::watch::Session session;

  explicit WatchedJobs(const std::vector<std::pair<std::string, std::optional<JobState>>>& jobs,
                       lg::watch::SessionOptions o = options())
    : session(slurm.query(), slurm.clock, o)
  {
    for (const auto& [id, state] : jobs) {
      if (state) {
        slurm.states[id] = *state;
      }
      session.add(id);
    }
  }
};

} // namespace

TEST_SUITE_BEGIN("watch");

TEST_CASE("session: first check after 3 s, 5 s after a change, then x1.6 up to the 120 s cap")
{
  WatchedJobs w({{"7", JobState::running}});
  auto& [slurm, session] = w;
  int cycles = 0;
  session.run([&](const lg::watch::Cycle&) { return ++cycles < 12; });
  // 3 (first answer: a change) +5, then 8, 12.8, 20.48, 32.768, 52.428,
  // 83.884 (whole milliseconds), 120 (cap), 120, …
  const std::vector<milliseconds> expected = {3000ms,  8000ms,  16000ms,  28800ms,  49280ms,  82048ms,
                                              134476ms, 218360ms, 338360ms, 458360ms, 578360ms, 698360ms};
  CHECK(slurm.asked_at == expected);
  CHECK(session.interval("7") == 120s);
}

TEST_CASE("session: a change on one job resets only that job's interval")
{
  WatchedJobs w({{"1", JobState::running}, {"2", JobState::running}});
  auto& [slurm, session] = w;
  int cycles = 0;
  session.run([&](const lg::watch::Cycle& cycle) {
    CHECK(cycle.updates.size() == 2);  // one question answers for both jobs
    if (++cycles == 6) {
      slurm.states["2"] = JobState::completing;
    }
    return cycles < 7;
  });
  CHECK(session.interval("1") > 30s);  // kept growing
  CHECK(session.interval("2") == 5s);  // back to the minimum
  CHECK(session.queries() == 7);
}

TEST_CASE("session: a job Slurm never knew vanishes after vanish_after and the loop ends")
{
  WatchedJobs w({{"99999999", std::nullopt}}, options(2s));
  auto& [slurm, session] = w;
  std::vector<lg::watch::JobUpdate> seen;
  const auto end = session.run([&](const lg::watch::Cycle& cycle) {
    seen.insert(seen.end(), cycle.updates.begin(), cycle.updates.end());
    return true;
  });
  CHECK(end == lg::watch::Session::End::no_jobs);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].vanished);
  CHECK(seen[0].missing_for >= 2s);
  // Asked at 3 s (missing since), then when the 2 s were over: 2 questions.
  CHECK(slurm.asked_at == std::vector<milliseconds>{3000ms, 5000ms});
}

TEST_CASE("session: an outage is not a vanished job, and backs off instead of hammering")
{
  WatchedJobs w({{"5", JobState::running}}, options(1s));
  auto& [slurm, session] = w;
  slurm.failing = 6;
  int outages_reported = 0;
  int cycles = 0;
  session.run([&](const lg::watch::Cycle& cycle) {
    outages_reported += cycle.outage && cycle.outage_changed ? 1 : 0;
    CHECK(cycle.updates.size() == (cycle.outage ? 0U : 1U));
    return ++cycles < 8;
  });
  CHECK(outages_reported == 1);
  CHECK(session.jobs() == std::vector<std::string>{"5"});
  // Intervals during the outage grow: 3, 5 (min), 8, 12.8, …
  REQUIRE(slurm.asked_at.size() == 8);
  CHECK(slurm.asked_at[2] - slurm.asked_at[1] > slurm.asked_at[1] - slurm.asked_at[0]);
}

TEST_CASE("session: a job that ends is dropped; the others go on")
{
  WatchedJobs w({{"1", JobState::running}, {"2", JobState::running}});
  auto& [slurm, session] = w;
  int cycles = 0;
  bool ended_seen = false;
  session.run([&](const lg::watch::Cycle& cycle) {
    for (const auto& update : cycle.updates) {
      ended_seen = ended_seen || (update.ended && update.id == "1" && update.status.state == JobState::failed);
    }
    if (++cycles == 2) {
      slurm.states["1"] = JobState::failed;
    }
    return cycles < 4;
  });
  CHECK(ended_seen);
  CHECK(session.jobs() == std::vector<std::string>{"2"});
}

TEST_CASE("session: ticks between Slurm checks ask Slurm nothing")
{
  lg::watch::SessionOptions o = options();
  o.tick = 1s;
  WatchedJobs w({{"3", JobState::running}}, o);
  auto& [slurm, session] = w;
  int ticks = 0;
  session.run([&](const lg::watch::Cycle& cycle) {
    ticks += cycle.polled ? 0 : 1;
    return slurm.clock.now() - slurm.start < 60s;
  });
  CHECK(ticks > 40);
  CHECK(slurm.asked_at.size() < 10);
}

TEST_CASE("session: another process's answer is news to a due job, and the next check counts from its time")
{
  // bench/slurm_load: processes started seconds apart kept their own
  // phases, and an answer older than half a job's interval was refused, so
  // the late starters asked Slurm themselves (100 runs: 20 commands a
  // minute where 1 run made 5). Here a poll cache shared with another
  // process is modelled by the time of its newest answer.
  lg::watch::ManualClock clock;
  const auto start = clock.now();
  std::optional<lg::watch::Clock::time_point> shared;
  int asked = 0;
  auto query = [&](std::span<const lg::slurm::JobId> ids, milliseconds max_age) {
    lg::slurm::JobStatus status;
    status.id = ids[0];
    status.state = JobState::pending;
    if (shared && clock.now() - *shared < max_age) {
      return lg::watch::QueryAnswer({status}, std::chrono::duration_cast<milliseconds>(clock.now() - *shared));
    }
    ++asked;
    shared = clock.now();
    return lg::watch::QueryAnswer({status});
  };
  lg::watch::Session session(query, clock, options());
  session.add("7");
  clock.advance(3s);
  session.poll();  // 3 s: asked; PENDING is a change, next look at 8 s
  REQUIRE(asked == 1);
  shared = start + 5s;  // the other process asked at 5 s
  clock.advance(5s);
  session.poll();  // 8 s: that answer is 3 s old but newer than ours: taken
  CHECK(asked == 1);
  CHECK(session.until_due() == 5s);  // 5 s + 8 s (grown): the shared answer's time, not 8 s + 8 s
  clock.advance(5s);
  session.poll();  // 13 s: nothing newer than the answer the schedule counts from
  CHECK(asked == 2);
}

TEST_CASE("session: acceptable_age is the youngest limit of the due jobs, less the margin")
{
  const auto now = lg::watch::Clock::time_point(100s);
  const std::vector<lg::watch::Clock::time_point> answered{now - 8s, now - 5s};
  CHECK(lg::watch::acceptable_age(answered, now, 250ms) == 4750ms);
  CHECK(lg::watch::acceptable_age({}, now, 250ms) == 0ms);  // nothing due: ask
  CHECK(lg::watch::acceptable_age(std::vector{now + 1s}, now, 250ms) == 0ms);
}

TEST_CASE("session: an interrupt ends the loop within a slice of sleep")
{
  WatchedJobs w({{"4", JobState::pending}});
  auto& [slurm, session] = w;
  const auto end = session.run([](const lg::watch::Cycle&) { return true; },
                               [&] { return slurm.clock.now() - slurm.start >= 1s; });
  CHECK(end == lg::watch::Session::End::interrupted);
  CHECK(slurm.asked_at.empty());
}

TEST_SUITE_END();
