#include "config/job_spec.hpp"
#include "support/builders.hpp"

#include <doctest/doctest.h>

TEST_SUITE_BEGIN("config");

TEST_CASE("derived: world, data-parallel and microbatch counts of the 70B case")
{
  const auto spec = lg::testing::llama3_70b_sft();
  CHECK(lg::config::world_size(spec) == 32);
  CHECK(lg::config::data_parallel_size(spec) == 2);
  CHECK(lg::config::num_microbatches(spec) == 16);
  CHECK(lg::config::padded_vocab_size(spec) == 128512);
}

TEST_SUITE_END();
