#include "launch/journal.hpp"
#include "launch/run_state.hpp"
#include "util/error.hpp"

#include "support/temp_dir.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {

using TempDir = lg::testing::TempDir;

} // namespace

TEST_SUITE_BEGIN("launch");

TEST_CASE("journal: records come back in order with their data")
{
  TempDir dir;
  auto journal = lg::launch::Journal::create(dir.path, "llama3 70b/sft");
  CHECK(journal.run_id().find("llama3_70b_sft") != std::string::npos);
  journal.append("run_created", {{"name", "llama3"}, {"max_attempts", 3}});
  journal.append("attempt_prepared", {{"attempt", 1}, {"tag", "t1"}});
  journal.append("submitted", {{"attempt", 1}, {"job_id", "42"}});
  const auto reopened = lg::launch::Journal::open(dir.path, journal.run_id());
  const auto records = reopened.records();
  REQUIRE(records.size() == 3);
  CHECK(records[0].seq == 1);
  CHECK(records[2].type == "submitted");
  CHECK(records[2].data["job_id"] == "42");
  const auto state = lg::launch::fold(journal.run_id(), records);
  REQUIRE(state.attempts.size() == 1);
  CHECK(state.max_attempts == 3);
  CHECK(state.attempts[0].job_id == std::optional<std::string>("42"));
  CHECK_FALSE(state.attempts[0].finished);
}

TEST_CASE("journal: a torn temp file and a damaged record do not hide good records")
{
  TempDir dir;
  auto journal = lg::launch::Journal::create(dir.path, "job");
  journal.append("run_created", {{"name", "job"}});
  // What a SIGKILL between write and link leaves: a temp file, never a record.
  std::ofstream(journal.dir() / "records" / ".tmp-123-456") << "{\"seq\": 2, \"ty";
  std::ofstream(journal.dir() / "records" / "00000002.json") << "garbage";
  journal.append("attempt_prepared", {{"attempt", 1}});
  int damaged = 0;
  const auto records = journal.records(&damaged);
  CHECK(damaged == 1);
  REQUIRE(records.size() == 2);
  CHECK(records[1].seq == 3);
}

TEST_CASE("journal: a record of the wrong type is skipped and counted like a garbled one")
{
  // Valid JSON that is not a record launchguard wrote: used to make `runs`
  // fail for every run (exit 3, a JSON type error).
  TempDir dir;
  auto journal = lg::launch::Journal::create(dir.path, "job");
  journal.append("run_created", {{"name", "job"}});
  std::ofstream(journal.dir() / "records" / "00000002.json") << R"({"seq": 2, "type": "attempt_prepared", "data": []})";
  std::ofstream(journal.dir() / "records" / "00000003.json")
    << R"({"seq": 3, "type": "submitted", "data": {"attempt": 1, "job_id": 1234}})";
  std::ofstream(journal.dir() / "records" / "00000004.json")
    << R"({"seq": 4, "type": "run_created", "data": {"sbatch_args": ["--x", 5]}})";
  journal.append("attempt_prepared", {{"attempt", 1}, {"tag", "t"}});
  journal.append("submitted", {{"attempt", 1}, {"job_id", "77"}});
  int damaged = 0;
  const auto records = journal.records(&damaged);
  CHECK(damaged == 3);
  REQUIRE(records.size() == 3);
  const auto state = lg::launch::fold(journal.run_id(), records);
  REQUIRE(state.attempts.size() == 1);
  CHECK(state.attempts[0].job_id == std::optional<std::string>("77"));
}

TEST_CASE("journal: concurrent writers never lose or duplicate a record")
{
  TempDir dir;
  auto journal = lg::launch::Journal::create(dir.path, "job");
  const int writers = 4;
  const int each = 25;
  for (int w = 0; w < writers; ++w) {
    if (::fork() == 0) {
      auto mine = lg::launch::Journal::open(dir.path, journal.run_id());
      for (int i = 0; i < each; ++i) {
        mine.append("state", {{"writer", w}, {"i", i}});
      }
      ::_exit(0);
    }
  }
  for (int w = 0; w < writers; ++w) {
    int status = 0;
    ::wait(&status);
    CHECK(WIFEXITED(status));
  }
  const auto records = journal.records();
  CHECK(records.size() == static_cast<std::size_t>(writers * each));
  for (std::size_t i = 0; i < records.size(); ++i) {
    CHECK(records[i].seq == static_cast<std::int64_t>(i + 1));
  }
}

TEST_CASE("journal: opening an unknown run is an input error naming it")
{
  TempDir dir;
  CHECK_THROWS_WITH_AS(lg::launch::Journal::open(dir.path, "nope"),
                       doctest::Contains("no run 'nope'"), lg::InputError);
  CHECK_THROWS_AS(lg::launch::Journal::open(dir.path, "../etc"), lg::InputError);
}

TEST_CASE("journal: artifacts are written whole")
{
  TempDir dir;
  auto journal = lg::launch::Journal::create(dir.path, "job");
  journal.write_artifact("attempt-1/job.sbatch", "#!/bin/bash\n");
  std::ifstream in(journal.dir() / "attempt-1" / "job.sbatch");
  std::string line;
  std::getline(in, line);
  CHECK(line == "#!/bin/bash");
  CHECK(lg::launch::list_runs(dir.path) == std::vector<std::string>{journal.run_id()});
}

TEST_CASE("run_state: folding finishes attempts and the run")
{
  std::vector<lg::launch::Record> records;
  auto add = [&](const char* type, nlohmann::json data) {
    records.push_back({static_cast<std::int64_t>(records.size() + 1), type, "", std::move(data)});
  };
  add("run_created", {{"name", "j"}, {"max_attempts", 2}});
  add("attempt_prepared", {{"attempt", 1}});
  add("submit_started", {{"attempt", 1}});
  add("submitted", {{"attempt", 1}, {"job_id", "7"}});
  add("diagnosis", {{"attempt", 1}, {"category", "cuda_oom_fragmentation"}});
  add("attempt_finished", {{"attempt", 1}, {"outcome", "failed"}, {"state", "FAILED"}});
  add("attempt_prepared", {{"attempt", 2}, {"fix", "expandable_segments"}});
  auto state = lg::launch::fold("r", records);
  REQUIRE(state.attempts.size() == 2);
  CHECK(state.attempts[0].category == "cuda_oom_fragmentation");
  CHECK(lg::watch::to_string(state.attempts[0].last_state) == "FAILED");
  REQUIRE(state.current() != nullptr);
  CHECK(state.current()->fix == "expandable_segments");
  CHECK(state.attempts[1].tag == "lg-r-a002");
  add("attempt_finished", {{"attempt", 2}, {"outcome", "completed"}});
  add("run_finished", {{"outcome", "succeeded"}});
  state = lg::launch::fold("r", records);
  CHECK(state.finished);
  CHECK(state.current() == nullptr);
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("launch");

TEST_CASE("journal: a claim is held by one process; a dead holder's claim is taken over")
{
  TempDir dir;
  auto journal = lg::launch::Journal::create(dir.path, "job");
  CHECK(journal.claim("submit-a001", std::chrono::seconds(600)));
  CHECK(journal.claim("submit-a001", std::chrono::seconds(600)));  // ours already
  const pid_t child = ::fork();
  if (child == 0) {
    auto other = lg::launch::Journal::open(dir.path, journal.run_id());
    ::_exit(other.claim("submit-a001", std::chrono::seconds(600)) ? 1 : 0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WEXITSTATUS(status) == 0);  // a live holder keeps it
  // A claim left by a process that died is stale.
  const pid_t holder = ::fork();
  if (holder == 0) {
    auto other = lg::launch::Journal::open(dir.path, journal.run_id());
    ::_exit(other.claim("submit-a002", std::chrono::seconds(600)) ? 0 : 1);
  }
  ::waitpid(holder, &status, 0);
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK(journal.claim("submit-a002", std::chrono::seconds(600)));
}

TEST_CASE("run_state: records written twice by two drivers count once")
{
  std::vector<lg::launch::Record> records;
  auto add = [&](const char* type, nlohmann::json data) {
    records.push_back({static_cast<std::int64_t>(records.size() + 1), type, "", std::move(data)});
  };
  add("run_created", {{"name", "j"}, {"max_attempts", 3}});
  add("attempt_prepared", {{"attempt", 1}});
  add("submitted", {{"attempt", 1}, {"job_id", "7"}});
  add("submitted", {{"attempt", 1}, {"job_id", "7"}});
  add("attempt_finished", {{"attempt", 1}, {"outcome", "failed"}});
  add("attempt_finished", {{"attempt", 1}, {"outcome", "failed"}});
  add("attempt_prepared", {{"attempt", 2}, {"fix", "expandable_segments"}});
  add("attempt_prepared", {{"attempt", 2}, {"fix", "recompute_core_attn"}});
  add("run_finished", {{"outcome", "succeeded"}});
  add("run_finished", {{"outcome", "failed"}});
  const auto state = lg::launch::fold("r", records);
  REQUIRE(state.attempts.size() == 2);
  CHECK(state.attempts[1].fix == "expandable_segments");
  CHECK(state.outcome == lg::launch::RunResult::succeeded);
}

TEST_SUITE_END();

TEST_CASE("journal: a run directory or record another user can write is refused, nothing read from it")
{
  // A stranger who can write the run swaps attempt-1/job.sbatch or a record,
  // and the victim's `watch` submits it under the victim's account.
  TempDir dir;
  auto journal = lg::launch::Journal::create(dir.path, "job");
  journal.append("run_created", {{"name", "job"}});
  struct stat info{};
  ::stat(journal.dir().c_str(), &info);
  CHECK((info.st_mode & 07777U) == 0700U);
  ::stat((journal.dir() / "records" / "00000001.json").c_str(), &info);
  CHECK((info.st_mode & 07777U) == 0600U);
  ::chmod((dir.path / "runs").c_str(), 0777);
  CHECK_THROWS_AS(lg::launch::Journal::open(dir.path, journal.run_id()), lg::InputError);
  CHECK_THROWS_AS(lg::launch::list_runs(dir.path), lg::InputError);
  ::chmod((dir.path / "runs").c_str(), 0700);
  ::chmod((journal.dir() / "records" / "00000001.json").c_str(), 0666);
  CHECK_THROWS_WITH_AS(journal.records(), doctest::Contains("writable by everyone"), lg::InputError);
}
