// CliClient against the fake Slurm tools in tests/fakes/bin: error paths a
// real cluster will not produce on demand. Each fake logs its argv, so the
// tests also check how many commands a call costs.
#include "slurm/client.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace lg::slurm;
using namespace std::chrono_literals;

namespace {

class FakeSlurm
{
public:
  explicit FakeSlurm(std::string modes)
    : m_log(std::filesystem::temp_directory_path()
            / ("lg-fake-slurm-" + std::to_string(::getpid()) + ".log"))
  {
    std::filesystem::remove(m_log);
    ClientOptions options;
    options.bin_dir = std::filesystem::path(LG_SOURCE_DIR) / "tests/fakes/bin";
    options.env = {{"LG_FAKE_SLURM", std::move(modes)},
                   {"LG_FAKE_SLURM_LOG", m_log.string()}};
    options.submit_timeout = 1s;
    options.query_timeout = 1s;
    client = make_cli_client(options);
  }
  FakeSlurm(const FakeSlurm&) = delete;
  FakeSlurm& operator=(const FakeSlurm&) = delete;
  ~FakeSlurm()
  {
    std::filesystem::remove(m_log);
  }

  // The commands run so far, one "tool args…" per line.
  std::vector<std::string> calls() const
  {
    std::ifstream in(m_log);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
      lines.push_back(line);
    }
    return lines;
  }

  std::unique_ptr<Client> client;

private:
  std::filesystem::path m_log;
};

SubmitOptions tagged(std::string tag)
{
  SubmitOptions options;
  options.tag = std::move(tag);
  options.job_name = "train";
  options.extra_args = {"--account=research"};
  return options;
}

} // namespace

TEST_SUITE_BEGIN("slurm");

TEST_CASE("CliClient::submit_file: argv and job id" * doctest::timeout(10))
{
  FakeSlurm slurm("");
  CHECK(slurm.client->submit_file("job.sbatch", tagged("lg:run-7:a1"))
        == "4242");
  REQUIRE(slurm.calls().size() == 1);
  CHECK(slurm.calls()[0]
        == "sbatch --parsable --job-name=train --comment=lg:run-7:a1 "
           "--account=research job.sbatch");
}

TEST_CASE("CliClient::submit_text: script on stdin" * doctest::timeout(10))
{
  FakeSlurm slurm("");
  CHECK(slurm.client->submit_text("#!/bin/bash\necho hi\n", SubmitOptions{})
        == "4242");
  CHECK(slurm.calls() == std::vector<std::string>{"sbatch --parsable"});
}

TEST_CASE("CliClient::submit: socket timeout is transient"
          * doctest::timeout(10))
{
  FakeSlurm slurm("sbatch=socket-timeout");
  try {
    slurm.client->submit_file("job.sbatch", tagged("lg:run-7:a1"));
    FAIL("expected TransientSlurmError");
  } catch (const TransientSlurmError& error) {
    CHECK(std::string(error.what())
          == "sbatch: Slurm did not answer (exit code 1): Socket timed out "
             "on send/recv operation");
    CHECK(error.hint.find("command: ") == 0);
    CHECK(error.hint.find("--comment=lg:run-7:a1") != std::string::npos);
  }
}

TEST_CASE("CliClient::submit: controller down is transient"
          * doctest::timeout(10))
{
  FakeSlurm slurm("sbatch=unreachable");
  CHECK_THROWS_AS(slurm.client->submit_file("job.sbatch", {}),
                  TransientSlurmError);
}

TEST_CASE("CliClient::submit: a refusal is SlurmRejected"
          * doctest::timeout(10))
{
  FakeSlurm slurm("sbatch=rejected");
  try {
    slurm.client->submit_file("job.sbatch", {});
    FAIL("expected SlurmRejected");
  } catch (const SlurmRejected& error) {
    CHECK(std::string(error.what())
          == "sbatch rejected the job (exit code 1): Invalid account or "
             "account/partition combination specified");
    CHECK(error.slurm_message
          == "Invalid account or account/partition combination specified");
  }
}

TEST_CASE("CliClient::submit: a hanging sbatch times out as transient"
          * doctest::timeout(10))
{
  FakeSlurm slurm("sbatch=hang");
  CHECK_THROWS_AS(slurm.client->submit_file("job.sbatch", {}),
                  TransientSlurmError);
}

TEST_CASE("CliClient::submit: output without an id" * doctest::timeout(10))
{
  FakeSlurm slurm("sbatch=no-id");
  CHECK_THROWS_WITH(slurm.client->submit_file("job.sbatch", {}),
                    "sbatch printed no job id: 'Submitted batch job'");
}

TEST_CASE("CliClient: a missing tool says so" * doctest::timeout(10))
{
  ClientOptions options;
  options.bin_dir = "/nonexistent/bin";
  auto client = make_cli_client(options);
  CHECK_THROWS_WITH_AS(client->submit_file("job.sbatch", {}),
                       "cannot run '/nonexistent/bin/sbatch': No such file "
                       "or directory",
                       lg::SystemError);
}

TEST_CASE("CliClient::query: one sacct call for all jobs"
          * doctest::timeout(10))
{
  FakeSlurm slurm("");
  const std::vector<JobId> ids{"11", "12", "13"};
  const auto jobs = slurm.client->query(ids);
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[1].id == "12");
  CHECK(jobs[1].state == JobState::completed);
  CHECK(jobs[1].steps.size() == 1);
  REQUIRE(slurm.calls().size() == 1);
  CHECK(slurm.calls()[0]
        == "sacct --jobs=11,12,13 --parsable2 --noheader "
           "--format=JobID,JobName,State,ExitCode,Elapsed,NodeList,Reason,"
           "Comment");
  CHECK(slurm.client->query({}).empty());
  CHECK(slurm.calls().size() == 1);
}

TEST_CASE("CliClient::query: ids sacct does not know yet come from squeue"
          * doctest::timeout(10))
{
  FakeSlurm slurm("sacct=empty");
  const std::vector<JobId> ids{"21", "22"};
  const auto jobs = slurm.client->query(ids);
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].state == JobState::running);
  CHECK(jobs[0].source == StatusSource::squeue);
  REQUIRE(slurm.calls().size() == 2);
  CHECK(slurm.calls()[1]
        == "squeue --noheader --states=all --jobs=21,22 "
           "--format=%i|%j|%T|%M|%N|%r|%k");
}

TEST_CASE("CliClient::query: falls back to squeue without accounting"
          * doctest::timeout(10))
{
  for (const std::string mode : {"sacct=disabled", "sacct=refused"}) {
    CAPTURE(mode);
    FakeSlurm slurm(mode);
    const std::vector<JobId> ids{"31"};
    const auto jobs = slurm.client->query(ids);
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].state == JobState::running);
  }
}

TEST_CASE("CliClient::query: sacct garbage gives squeue's answer"
          * doctest::timeout(10))
{
  FakeSlurm slurm("sacct=garbage");
  const std::vector<JobId> ids{"41"};
  const auto jobs = slurm.client->query(ids);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].source == StatusSource::squeue);

  FakeSlurm both("sacct=garbage squeue=garbage");
  CHECK(both.client->query(ids).empty());
}

TEST_CASE("CliClient::query: ids nobody knows are omitted"
          * doctest::timeout(10))
{
  FakeSlurm slurm("sacct=empty squeue=invalid");
  const std::vector<JobId> ids{"999999"};
  CHECK(slurm.client->query(ids).empty());
}

TEST_CASE("CliClient::query: nobody answers is transient"
          * doctest::timeout(10))
{
  FakeSlurm slurm("sacct=refused squeue=unreachable");
  const std::vector<JobId> ids{"51"};
  CHECK_THROWS_AS(slurm.client->query(ids), TransientSlurmError);
}

TEST_CASE("CliClient::find_by_tag: matches comment, asks squeue and sacct"
          * doctest::timeout(10))
{
  FakeSlurm slurm("squeue=tagged sacct=empty");
  const auto jobs = slurm.client->find_by_tag("lg:run-7:a2");
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].id == "101");
  CHECK(slurm.calls().size() == 2);
  CHECK(slurm.client->find_by_tag("lg:run-8").empty());
  CHECK_THROWS(slurm.client->find_by_tag(""));
}

TEST_CASE("CliClient::cancel and ping" * doctest::timeout(10))
{
  FakeSlurm slurm("");
  slurm.client->cancel("77");
  CHECK(slurm.calls() == std::vector<std::string>{"scancel 77"});
  CHECK(slurm.client->ping());

  FakeSlurm down("scontrol=down");
  CHECK_FALSE(down.client->ping());
}

TEST_SUITE_END();
