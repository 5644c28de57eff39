#include "slurm/job_status.hpp"

#include <doctest/doctest.h>

using namespace lg::slurm;

TEST_SUITE_BEGIN("slurm");

TEST_CASE("parse_job_state: long names, short codes, decorations")
{
  CHECK(parse_job_state("RUNNING") == JobState::running);
  CHECK(parse_job_state("CANCELLED by 0") == JobState::cancelled);
  CHECK(parse_job_state("CANCELLED+") == JobState::cancelled);
  CHECK(parse_job_state("OUT_OF_MEMORY") == JobState::out_of_memory);
  CHECK(parse_job_state("OOM") == JobState::out_of_memory);
  CHECK(parse_job_state("CD") == JobState::completed);
  CHECK(parse_job_state("PD") == JobState::pending);
  CHECK(parse_job_state("") == JobState::unknown);
  CHECK(parse_job_state("running") == JobState::unknown);
}

TEST_CASE("to_string and parse_job_state agree for every state")
{
  for (int i = 1; i <= static_cast<int>(JobState::special_exit); ++i) {
    const auto state = static_cast<JobState>(i);
    CAPTURE(to_string(state));
    CHECK(parse_job_state(to_string(state)) == state);
  }
  CHECK(to_string(JobState::unknown) == "UNKNOWN");
}

TEST_CASE("is_terminal")
{
  CHECK_FALSE(is_terminal(JobState::pending));
  CHECK_FALSE(is_terminal(JobState::running));
  CHECK_FALSE(is_terminal(JobState::completing));
  CHECK_FALSE(is_terminal(JobState::unknown));
  CHECK(is_terminal(JobState::completed));
  CHECK(is_terminal(JobState::out_of_memory));
  CHECK(is_terminal(JobState::node_fail));
  CHECK(is_terminal(JobState::timeout));
}

TEST_SUITE_END();
