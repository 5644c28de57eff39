#include "util/strings.hpp"

#include <doctest/doctest.h>

TEST_SUITE_BEGIN("util");

TEST_CASE("shell_quote: leaves safe words and quotes everything else")
{
  CHECK(lg::shell_quote("python") == "python");
  CHECK(lg::shell_quote("a b") == "'a b'");
  CHECK(lg::shell_quote("$(rm -rf /)") == "'$(rm -rf /)'");
  CHECK(lg::shell_quote("it's") == "'it'\\''s'");
  CHECK(lg::shell_quote("") == "''");
}

TEST_CASE("split and trim")
{
  CHECK(lg::split("a,,b", ',') == std::vector<std::string>{"a", "", "b"});
  CHECK(lg::trim("  x y \n") == "x y");
}

TEST_SUITE_END();
