#include "slurm/fake_client.hpp"

#include <doctest/doctest.h>

using namespace lg::slurm;

TEST_SUITE_BEGIN("slurm");

TEST_CASE("FakeClient: records submissions and follows scripted states")
{
  FakeClient fake;
  fake.script_next_submission(
    {JobState::pending, JobState::running, JobState::out_of_memory});
  SubmitOptions options;
  options.tag = "lg:r1:a1";
  const JobId id = fake.submit_text("#!/bin/bash\n", options);
  CHECK(id == "1000");
  REQUIRE(fake.submissions().size() == 1);
  CHECK(fake.submissions()[0].script_text == "#!/bin/bash\n");

  const std::vector<JobId> ids{id, "nope"};
  CHECK(fake.query(ids).at(0).state == JobState::pending);
  CHECK(fake.query(ids).at(0).state == JobState::running);
  const auto last = fake.query(ids);
  REQUIRE(last.size() == 1);
  CHECK(last[0].state == JobState::out_of_memory);
  CHECK(last[0].comment == "lg:r1:a1");
  CHECK(fake.query(ids).at(0).state == JobState::out_of_memory);
  CHECK(fake.queries().size() == 4);
  CHECK(fake.queries()[0] == ids);
}

TEST_CASE("FakeClient: a timed-out submit can still have queued the job")
{
  FakeClient fake;
  fake.fail_next_submit(FakeClient::SubmitFailure::timeout_after_queue);
  SubmitOptions options;
  options.tag = "lg:r2:a1";
  CHECK_THROWS_AS(fake.submit_file("job.sbatch", options),
                  TransientSlurmError);
  const auto found = fake.find_by_tag("lg:r2:a1");
  REQUIRE(found.size() == 1);
  CHECK(found[0].state == JobState::pending);
  // The failure is used up.
  CHECK(fake.submit_file("job.sbatch", options) == "1001");
}

TEST_CASE("FakeClient: rejections, unreachable Slurm, failing queries")
{
  FakeClient fake;
  fake.fail_next_submit(FakeClient::SubmitFailure::rejected,
                        "Invalid partition name specified");
  CHECK_THROWS_AS(fake.submit_file("job.sbatch", {}), SlurmRejected);
  fake.fail_next_submit(FakeClient::SubmitFailure::unreachable);
  CHECK_THROWS_AS(fake.submit_file("job.sbatch", {}), TransientSlurmError);
  CHECK(fake.submissions().empty());

  fake.fail_next_queries(2);
  const std::vector<JobId> ids{"1"};
  CHECK_THROWS_AS(fake.query(ids), TransientSlurmError);
  CHECK_THROWS_AS(fake.query(ids), TransientSlurmError);
  CHECK(fake.query(ids).empty());
}

TEST_CASE("FakeClient: cancel and ping")
{
  FakeClient fake;
  const JobId id = fake.submit_file("job.sbatch", {});
  fake.cancel(id);
  CHECK(fake.cancelled() == std::vector<JobId>{id});
  const std::vector<JobId> ids{id};
  CHECK(fake.query(ids).at(0).state == JobState::cancelled);
  CHECK(fake.ping());
  fake.set_ping(false);
  CHECK_FALSE(fake.ping());
}

TEST_SUITE_END();
