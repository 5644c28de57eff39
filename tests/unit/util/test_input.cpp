// util/input: the one reader of named files. The cases are the adversarial
// pass of issue 10: a FIFO blocked every command forever, /dev/zero grew to
// 4 GB and bad_alloc, a directory was read as an empty file ("audit DIR" was
// clean), a symlink loop or a long path was "internal error" (exit 3).
#include "support/temp_dir.hpp"
#include "util/error.hpp"
#include "util/input.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

namespace {

using TempDir = lg::testing::TempDir;

std::string read_error(const std::string& path, std::size_t max_bytes = 1u << 20)
{
  try {
    lg::read_file(path, "job file", max_bytes);
  } catch (const lg::InputError& e) {
    return e.what();
  }
  return "no error";
}

} // namespace

TEST_SUITE_BEGIN("util");

TEST_CASE("read_file: a regular file is read whole")
{
  TempDir dir;
  const fs::path file = dir.path / "job.toml";
  std::ofstream(file) << "[model]\npreset = \"llama3-8b\"\n";
  CHECK(lg::read_file(file.string(), "job file", 1024) == "[model]\npreset = \"llama3-8b\"\n");
}

TEST_CASE("read_file: a directory, a FIFO and a device are refused, never read")
{
  TempDir dir;
  CHECK(read_error(dir.path.string()).find("is a directory, not a regular file") != std::string::npos);
  const fs::path fifo = dir.path / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Before: open() waited for a writer forever.
  CHECK(read_error(fifo.string()).find("is a FIFO (named pipe)") != std::string::npos);
  CHECK(read_error("/dev/zero").find("is a character device") != std::string::npos);
}

TEST_CASE("read_file: a file over the cap is an input error naming the cap")
{
  TempDir dir;
  const fs::path file = dir.path / "big.toml";
  std::ofstream(file) << std::string(5000, '#');
  CHECK(read_error(file.string(), 4096) == "job file '" + file.string() + "' is larger than 4.0 KiB, the most launchguard reads for one");
  CHECK(lg::read_file(file.string(), "job file", 5000).size() == 5000);
}

TEST_CASE("read_file: a symlink loop, a long path and a missing file are input errors")
{
  TempDir dir;
  fs::create_symlink(dir.path / "b", dir.path / "a");
  fs::create_symlink(dir.path / "a", dir.path / "b");
  CHECK(read_error((dir.path / "a").string()).find("a symlink loop") != std::string::npos);
  CHECK(read_error(std::string(5000, 'x')).find("the path is too long") != std::string::npos);
  CHECK(read_error((dir.path / "none.toml").string()).find("no such file") != std::string::npos);
}

TEST_CASE("InputFile: reads in blocks to the end")
{
  TempDir dir;
  const fs::path file = dir.path / "log";
  std::ofstream(file) << "abcdef";
  lg::InputFile in(file.string(), "log");
  char buffer[4];
  CHECK(in.read_full(buffer, 4) == 4);
  CHECK(std::string(buffer, 4) == "abcd");
  CHECK(in.read_full(buffer, 4) == 2);
  CHECK(in.read(buffer, 4) == 0);
  CHECK(in.name() == file.string());
}

TEST_SUITE_END();
