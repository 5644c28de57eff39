// The failure categories are spelled once (diagnose/category.hpp); the
// catalogue, the retry ladder and the CLI all go through that table.
#include "diagnose/catalogue.hpp"
#include "diagnose/category.hpp"

#include <doctest/doctest.h>

using namespace lg::diagnose;

TEST_SUITE_BEGIN("diagnose");

TEST_CASE("category: every category round-trips through its one spelling")
{
  REQUIRE(all_categories().size() == category_names().size());
  for (const Category category : all_categories()) {
    CHECK(parse_category(to_string(category)) == category);
  }
  CHECK_FALSE(parse_category("cuda_oom").has_value());
}

TEST_CASE("category: kinds decide the retry ladder")
{
  CHECK(is_memory_failure("cuda_oom_fragmentation"));
  CHECK_FALSE(is_memory_failure("host_oom"));  // host memory: a job change, not a GPU-memory fix
  CHECK(is_infrastructure_failure("slurm_preemption_or_node_failure"));
  CHECK_FALSE(is_infrastructure_failure("config_error"));
  CHECK_FALSE(is_memory_failure("no_such_category"));
  CHECK(is_failure("unknown"));
  CHECK_FALSE(is_failure("none"));
  CHECK_FALSE(is_failure(""));
  CHECK(kind_of(Category::none) == CategoryKind::verdict);
  CHECK(is_hang_failure("hang_no_progress"));  // its own policy: resubmitted once, unchanged
  CHECK_FALSE(is_hang_failure("nccl_timeout"));
  CHECK_FALSE(is_infrastructure_failure("hang_no_progress"));
}

TEST_CASE("category: the shipped catalogue gives every failure category a default fix")
{
  const Catalogue catalogue = default_catalogue();
  for (const Category category : all_categories()) {
    if (kind_of(category) != CategoryKind::verdict || category == Category::unknown) {
      CHECK_MESSAGE(catalogue.categories.count(std::string(to_string(category))) == 1, to_string(category));
    }
  }
}

TEST_SUITE_END();
