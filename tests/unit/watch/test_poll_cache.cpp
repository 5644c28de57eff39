// watch/poll_cache: the launchguard processes of one user share their Slurm
// questions through <state dir>/poll. Two caches over one directory stand in
// for two processes; registrations of other processes are written by hand.
#include "slurm/errors.hpp"
#include "slurm/fake_client.hpp"
#include "support/temp_dir.hpp"
#include "util/process.hpp"
#include "watch/poll_cache.hpp"

#include <doctest/doctest.h>

#include <fstream>

using namespace std::chrono_literals;
using lg::slurm::JobState;

namespace {

struct Shared
{
  lg::testing::TempDir dir{"lg-poll"};
  lg::slurm::FakeClient slurm;
  lg::watch::ManualClock clock;
  std::int64_t wall = 1'700'000'000'000;
  std::function<std::int64_t()> wall_ms = [this] { return wall; };

  Shared()
  {
    slurm.script_states("1", std::vector<JobState>{JobState::running});
    slurm.script_states("2", std::vector<JobState>{JobState::pending});
    slurm.script_states("77", std::vector<JobState>{JobState::running});
  }
  std::vector<lg::slurm::JobId> asked(std::size_t query) const { return slurm.queries().at(query); }
};

} // namespace

TEST_SUITE_BEGIN("watch");

TEST_CASE("poll_cache: a fresh enough answer serves another process without asking Slurm")
{
  Shared s;
  lg::watch::PollCache a(s.dir.path / "poll", s.slurm, s.clock, s.wall_ms);
  lg::watch::PollCache b(s.dir.path / "poll", s.slurm, s.clock, s.wall_ms);
  const std::vector<lg::slurm::JobId> one{"1"};
  const auto first = a.query(one, 0ms).statuses;
  REQUIRE(first.size() == 1);
  CHECK(first[0].state == JobState::running);
  CHECK(s.slurm.queries().size() == 1);
  s.wall += 2000;
  const auto served = b.query(one, 5s);
  CHECK(served.age == 2s);  // the session counts its next check from a's question
  const auto& second = served.statuses;
  REQUIRE(second.size() == 1);
  CHECK(second[0].id == "1");
  CHECK(second[0].state == JobState::running);
  CHECK(s.slurm.queries().size() == 1);  // served from a's answer
  CHECK(b.slurm_questions() == 0);
  s.wall += 10000;
  b.query(one, 5s);  // too old now: asked again
  CHECK(s.slurm.queries().size() == 2);
}

TEST_CASE("poll_cache: one question asks for the jobs of every live process; dead ones are dropped")
{
  Shared s;
  lg::watch::PollCache a(s.dir.path / "poll", s.slurm, s.clock, s.wall_ms);
  const std::string host = lg::process::host_name();
  std::ofstream(s.dir.path / "poll" / "watchers" / (host + "-1")) << "77\n";        // pid 1 lives
  std::ofstream(s.dir.path / "poll" / "watchers" / (host + "-999999999")) << "2\n";  // no such pid
  a.query(std::vector<lg::slurm::JobId>{"1"}, 0ms);
  CHECK(s.asked(0) == std::vector<lg::slurm::JobId>{"1", "77"});
  CHECK_FALSE(std::filesystem::exists(s.dir.path / "poll" / "watchers" / (host + "-999999999")));
  // The other process's job is in the answer it will find.
  lg::watch::PollCache b(s.dir.path / "poll", s.slurm, s.clock, s.wall_ms);
  CHECK(b.query(std::vector<lg::slurm::JobId>{"77"}, 1s).statuses.size() == 1);
  CHECK(s.slurm.queries().size() == 1);
}

TEST_CASE("poll_cache: Slurm's silence is shared too: no second process hammers it")
{
  Shared s;
  lg::watch::PollCache a(s.dir.path / "poll", s.slurm, s.clock, s.wall_ms);
  lg::watch::PollCache b(s.dir.path / "poll", s.slurm, s.clock, s.wall_ms);
  s.slurm.fail_next_queries(1);
  const std::vector<lg::slurm::JobId> one{"1"};
  CHECK_THROWS_AS(a.query(one, 0ms), lg::slurm::TransientSlurmError);
  CHECK_THROWS_AS(b.query(one, 3s), lg::slurm::TransientSlurmError);
  CHECK(s.slurm.queries().size() == 1);
}

TEST_CASE("poll_cache: an answer another user could write is not believed")
{
  Shared s;
  lg::watch::PollCache a(s.dir.path / "poll", s.slurm, s.clock, s.wall_ms);
  const std::vector<lg::slurm::JobId> one{"1"};
  a.query(one, 0ms);
  const auto answer = s.dir.path / "poll" / "answer.json";
  std::filesystem::permissions(answer, std::filesystem::perms::others_write, std::filesystem::perm_options::add);
  a.query(one, 60s);
  CHECK(s.slurm.queries().size() == 2);  // asked Slurm instead, and replaced it
  CHECK((std::filesystem::status(answer).permissions() & std::filesystem::perms::others_write)
        == std::filesystem::perms::none);
}

TEST_CASE("poll_cache: a cache that cannot be written (full disk) asks Slurm directly, never fails the watch")
{
  Shared s;
  lg::watch::PollCache a(s.dir.path / "poll", s.slurm, s.clock, s.wall_ms);
  // Stand-in for a full disk: the directory cannot take new files.
  std::filesystem::remove_all(s.dir.path / "poll" / "watchers");
  std::ofstream(s.dir.path / "poll" / "watchers") << "a file, not a directory\n";
  const auto answer = a.query(std::vector<lg::slurm::JobId>{"1"}, 0ms).statuses;
  REQUIRE(answer.size() == 1);
  CHECK(answer[0].state == JobState::running);
  CHECK(s.slurm.queries().size() == 1);
}

TEST_CASE("poll_cache: processes that start moments after a question share the next one instead of each asking")
{
  // bench/slurm_load: 100 `watch` processes started together made 18 sacct
  // a minute where 1 made 5, because each newcomer's job was missing from
  // the answer another process had just got, so each asked Slurm at once.
  Shared s;
  lg::watch::PollCache a(s.dir.path / "poll", s.slurm, s.clock, s.wall_ms);
  a.query(std::vector<lg::slurm::JobId>{"1"}, 0ms);
  REQUIRE(s.slurm.queries().size() == 1);
  // Two newcomers: b, and another live process (pid 1) watching 77.
  const std::string host = lg::process::host_name();
  std::ofstream(s.dir.path / "poll" / "watchers" / (host + "-1")) << "77\n";
  s.wall += 500;
  lg::watch::PollCache b(s.dir.path / "poll", s.slurm, s.clock, s.wall_ms);
  const auto before = s.clock.now();
  const auto answer = b.query(std::vector<lg::slurm::JobId>{"2"}, 0ms).statuses;
  REQUIRE(answer.size() == 1);
  CHECK(answer[0].state == JobState::pending);
  CHECK(s.clock.now() - before >= 5s);  // waited for a shared question rather than asking at once
  REQUIRE(s.slurm.queries().size() == 2);
  // One question for both newcomers (a and b stand for two processes but
  // share this test's pid, so b's registration replaced a's).
  CHECK(s.asked(1) == std::vector<lg::slurm::JobId>{"2", "77"});
  lg::watch::PollCache c(s.dir.path / "poll", s.slurm, s.clock, s.wall_ms);
  CHECK(c.query(std::vector<lg::slurm::JobId>{"77"}, 5s).statuses.size() == 1);
  CHECK(s.slurm.queries().size() == 2);
  // A job the answer covers is never held back: an old answer is renewed at once.
  s.wall += 60000;
  const auto renewed = s.clock.now();
  a.query(std::vector<lg::slurm::JobId>{"1"}, 5s);
  CHECK(s.slurm.queries().size() == 3);
  CHECK(s.clock.now() == renewed);
}

TEST_CASE("poll_cache: a process's own answer never holds back its next job (a retry's attempt)")
{
  // `submit --retry` alone on a login node: attempt 2's job is missing from
  // the answer attempt 1's last check wrote; waiting for another process's
  // question there only delayed every retry by 5 s.
  Shared s;
  lg::watch::PollCache a(s.dir.path / "poll", s.slurm, s.clock, s.wall_ms);
  a.query(std::vector<lg::slurm::JobId>{"1"}, 0ms);
  s.wall += 500;
  const auto before = s.clock.now();
  const auto answer = a.query(std::vector<lg::slurm::JobId>{"2"}, 0ms).statuses;
  REQUIRE(answer.size() == 1);
  CHECK(answer[0].state == JobState::pending);
  CHECK(s.clock.now() == before);  // asked at once
  CHECK(s.slurm.queries().size() == 2);
}

TEST_SUITE_END();
