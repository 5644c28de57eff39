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

TEST_SUITE_BEGIN("config");

TEST_CASE("derived: selective recompute defaults to core_attn; other granularities cover no module")
{
  lg::config::RecomputeSpec r;
  CHECK(lg::config::recompute_modules(r).empty());
  r.granularity = lg::config::RecomputeGranularity::selective;
  CHECK(lg::config::recompute_modules(r) == std::vector<std::string>{"core_attn"});
  CHECK(lg::config::recomputes_module(r, "core_attn"));
  CHECK_FALSE(lg::config::recomputes_module(r, "mlp"));
  r.modules = {"mlp"};
  CHECK(lg::config::recomputes_module(r, "mlp"));
  CHECK_FALSE(lg::config::recomputes_module(r, "core_attn"));
  r.granularity = lg::config::RecomputeGranularity::full;
  CHECK_FALSE(lg::config::recomputes_module(r, "mlp"));
}

TEST_SUITE_END();
