// util/nesting: the depth guard before toml++. `[a.a.a…]` with 50,000 levels
// was a SIGSEGV in toml++ (recursive table building and destruction).
#include "util/error.hpp"
#include "util/nesting.hpp"

#include <doctest/doctest.h>

#include <string>

namespace {

std::string header(std::size_t levels)
{
  std::string text = "[a";
  for (std::size_t i = 1; i < levels; ++i) {
    text += ".a";
  }
  return text + "]\nx = 1\n";
}

} // namespace

TEST_SUITE_BEGIN("util");

TEST_CASE("toml_too_deep: ordinary job files pass")
{
  CHECK_FALSE(lg::toml_too_deep("[model.moe]\nexperts = 8\n[env]\nA = \"x.y.z\" # a.b.c.d\n"));
  CHECK_FALSE(lg::toml_too_deep("x = [1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5]\n", 4));
  CHECK_FALSE(lg::toml_too_deep("s = '''\n[a.a.a.a.a.a.a.a]\n'''\nt = \"a.a.a.a.a\"\n", 4));
  CHECK_FALSE(lg::toml_too_deep(header(63)));  // 63 tables and the key x
}

TEST_CASE("toml_too_deep: a deep header, dotted key or array is found with its place")
{
  const auto deep = lg::toml_too_deep(header(50000));
  REQUIRE(deep);
  CHECK(deep->line == 1);
  CHECK(lg::toml_too_deep(header(64)));
  const auto dotted = lg::toml_too_deep("[x]\na.b.c.d = 1\n", 4);
  REQUIRE(dotted);
  CHECK(dotted->line == 2);
  CHECK(lg::toml_too_deep(std::string(100, '[') + std::string(100, ']'), 64));
  CHECK(lg::toml_too_deep("v = " + std::string(70, '[') + std::string(70, ']') + "\n"));
  CHECK(lg::toml_too_deep("t = {a = {b = {c = {d = 1}}}}\n", 4));
  CHECK_FALSE(lg::toml_too_deep("t = {a = {b = {c = {d = 1}}}}\n", 5));
}

TEST_CASE("refuse_deep_toml: an input error with file:line:column")
{
  try {
    lg::refuse_deep_toml(header(50000), "job.toml");
    FAIL("no error");
  } catch (const lg::InputError& e) {
    CHECK(std::string(e.what()).starts_with("job.toml:1:"));
    CHECK(std::string(e.what()).find("nested more than 64 levels") != std::string::npos);
  }
}

TEST_SUITE_END();
