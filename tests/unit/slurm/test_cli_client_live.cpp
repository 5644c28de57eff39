// CliClient against a real Slurm cluster: the argv CliClient builds must be
// accepted by the real tools, not only by the fakes. Runs only with
// LG_SLURM_LIVE=1 (tests/e2e/slurm_client_real_cluster.sh sets it after
// checking that scripts/slurm-cluster is up); otherwise it passes trivially.
#include "slurm/client.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <unistd.h>

using namespace lg::slurm;
using namespace std::chrono_literals;

namespace {

bool live()
{
  const char* flag = std::getenv("LG_SLURM_LIVE");
  return flag != nullptr && std::string(flag) == "1";
}

// Poll until sacct has `id` in a terminal state (or 60 s pass). squeue may
// report the end first, but without an exit code.
JobStatus wait_for_end(Client& client, const JobId& id)
{
  const std::vector<JobId> ids{id};
  JobStatus last;
  for (int i = 0; i < 120; ++i) {
    const auto jobs = client.query(ids);
    if (!jobs.empty()) {
      last = jobs[0];
      if (is_terminal(last.state) && last.source == StatusSource::sacct) {
        return last;
      }
    }
    std::this_thread::sleep_for(500ms);
  }
  return last;
}

} // namespace

TEST_SUITE_BEGIN("slurm");

TEST_CASE("CliClient (live): submit, query, find_by_tag, cancel"
          * doctest::timeout(150))
{
  if (!live()) {
    MESSAGE("LG_SLURM_LIVE is not 1: not talking to a real cluster");
    return;
  }
  auto client = make_cli_client();
  REQUIRE(client->ping());

  const std::string tag = "lg:live-" + std::to_string(::getpid()) + ":a1";
  SubmitOptions options;
  options.tag = tag;
  options.job_name = "lg-live";
  options.extra_args = {"--account=research", "--time=00:02:00"};

  const JobId done = client->submit_text(
    "#!/bin/bash\n#SBATCH --output=/dev/null\nexit 3\n", options);
  const JobId sleeper = client->submit_text(
    "#!/bin/bash\n#SBATCH --output=/dev/null\nsleep 120\n", options);

  // Right after submission: from squeue or sacct, but known either way.
  const std::vector<JobId> both{done, sleeper, "999999999"};
  const auto first = client->query(both);
  CHECK(first.size() == 2);

  const auto found = client->find_by_tag(tag);
  CHECK(found.size() == 2);

  const JobStatus failed = wait_for_end(*client, done);
  CHECK(failed.state == JobState::failed);
  CHECK(failed.exit == ExitStatus{3, 0});
  CHECK(failed.source == StatusSource::sacct);

  client->cancel(sleeper);
  const JobStatus cancelled = wait_for_end(*client, sleeper);
  CHECK(cancelled.state == JobState::cancelled);
}

TEST_CASE("CliClient (live): sbatch refusals are SlurmRejected"
          * doctest::timeout(30))
{
  if (!live()) {
    return;
  }
  auto client = make_cli_client();
  SubmitOptions options;
  options.extra_args = {"--account=no-such-account"};
  CHECK_THROWS_WITH_AS(
    client->submit_text("#!/bin/bash\ntrue\n", options),
    "sbatch rejected the job (exit code 1): Invalid account or "
    "account/partition combination specified",
    SlurmRejected);
}

TEST_SUITE_END();
