#include "util/edit_distance.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

TEST_SUITE_BEGIN("util");

TEST_CASE("edit_distance: counts insertions, deletions and substitutions")
{
  CHECK(lg::edit_distance("", "") == 0);
  CHECK(lg::edit_distance("sumbit", "submit") == 2);
  CHECK(lg::edit_distance("tp", "pp") == 1);
  CHECK(lg::edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("nearest: suggests a close name and nothing for a far one")
{
  const std::vector<std::string> names = {"check", "estimate", "submit", "watch"};
  CHECK(lg::nearest("sumbit", names) == std::optional<std::string>("submit"));
  CHECK(lg::nearest("estimat", names) == std::optional<std::string>("estimate"));
  CHECK_FALSE(lg::nearest("zzzzzzzzzz", names).has_value());
}

TEST_SUITE_END();
