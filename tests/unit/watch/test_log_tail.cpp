#include "watch/log_tail.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

TEST_SUITE_BEGIN("watch");

TEST_CASE("log_tail: reads only appended complete lines, by offset")
{
  char pattern[] = "/tmp/lg-tail-XXXXXX";
  const fs::path dir = ::mkdtemp(pattern);
  const fs::path log = dir / "rank0.out";
  lg::watch::LogTail tail;
  CHECK(tail.poll(log).empty());  // not there yet
  std::ofstream(log) << "one\ntwo\nthr";
  auto lines = tail.poll(log);
  REQUIRE(lines.size() == 2);
  CHECK(lines[1].text == "two");
  CHECK(lines[1].line == 2);
  std::ofstream(log, std::ios::app) << "ee\nfour\n";
  lines = tail.poll(log);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].text == "three");
  CHECK(lines[0].line == 3);
  CHECK(tail.poll(log).empty());
  CHECK(tail.offset(log) == 19);
  fs::remove_all(dir);
}

TEST_CASE("log_tail: a truncated file is read again from the start")
{
  char pattern[] = "/tmp/lg-tail-XXXXXX";
  const fs::path dir = ::mkdtemp(pattern);
  const fs::path log = dir / "rank0.out";
  lg::watch::LogTail tail;
  std::ofstream(log) << "a long first line\nsecond\n";
  CHECK(tail.poll(log).size() == 2);
  std::ofstream(log, std::ios::trunc) << "new\n";
  const auto lines = tail.poll(log);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].text == "new");
  CHECK(lines[0].line == 1);
  CHECK(tail.restarts() == 1);
  fs::remove(log);
  CHECK(tail.poll(log).empty());  // deleted: nothing, no crash
  fs::remove_all(dir);
}

TEST_CASE("log_tail: flush returns a final line without newline")
{
  char pattern[] = "/tmp/lg-tail-XXXXXX";
  const fs::path dir = ::mkdtemp(pattern);
  const fs::path log = dir / "r.out";
  lg::watch::LogTail tail;
  std::ofstream(log) << "Killed";
  CHECK(tail.poll(log).empty());
  const auto lines = tail.poll(log, true);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].text == "Killed");
  fs::remove_all(dir);
}

TEST_SUITE_END();
