#include "watch/memory_report.hpp"

#include <doctest/doctest.h>

TEST_SUITE_BEGIN("watch");

TEST_CASE("memory_report: Megatron-LM MB line")
{
  const auto report = lg::watch::parse_memory_report(
    "[Rank 3] (after 10 iterations) memory (MB) | allocated: 1024.0 | max allocated: 60211.5 | reserved: "
    "70000.0 | max reserved: 72000.0");
  REQUIRE(report.has_value());
  CHECK(report->rank == 3);
  CHECK(report->allocated_bytes == doctest::Approx(1024.0 * 1048576));
  CHECK(report->max_allocated_bytes == doctest::Approx(60211.5 * 1048576));
  CHECK(report->reserved_bytes == doctest::Approx(70000.0 * 1048576));
  CHECK(report->max_reserved_bytes == doctest::Approx(72000.0 * 1048576));
}

TEST_CASE("memory_report: other lines are not reports")
{
  CHECK_FALSE(lg::watch::parse_memory_report(" iteration 10/100 | lm loss: 2.3").has_value());
  CHECK_FALSE(lg::watch::parse_memory_report("memory (MB) | nothing here").has_value());
}

TEST_SUITE_END();
