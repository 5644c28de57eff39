// write_file_atomically: the behaviours `audit --fix` and `render -o` rely on
// (issue: a killed or failed write left a 0-byte or cut script).
#include "support/file_mode.hpp"
#include "support/temp_dir.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using lg::write_file_atomically;

namespace {

using TempDir = lg::testing::TempDir;

std::string slurp(const fs::path& p)
{
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const fs::path& p, const std::string& bytes)
{
  std::ofstream(p, std::ios::binary) << bytes;
}

std::size_t entries(const fs::path& dir)
{
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

} // namespace

TEST_SUITE_BEGIN("util");

TEST_CASE("write_file_atomically: replaces the bytes and keeps the mode bits")
{
  TempDir dir;
  const fs::path file = dir.path / "job.sbatch";
  spit(file, "old\n");
  REQUIRE(::chmod(file.c_str(), 0750) == 0);
  write_file_atomically(file.string(), "new contents\n");
  CHECK(slurp(file) == "new contents\n");
  CHECK(lg::testing::file_mode(file) == 0750);
  CHECK(entries(dir.path) == 1);  // no temporary left behind
}

TEST_CASE("write_file_atomically: a new file gets the requested mode; force_mode tightens an existing one")
{
  TempDir dir;
  const fs::path file = dir.path / "secret.sbatch";
  write_file_atomically(file.string(), "x", {.mode = 0600, .force_mode = false});
  CHECK(lg::testing::file_mode(file) == 0600);
  REQUIRE(::chmod(file.c_str(), 0644) == 0);
  write_file_atomically(file.string(), "y", {.mode = 0600, .force_mode = true});
  CHECK(lg::testing::file_mode(file) == 0600);
}

TEST_CASE("write_file_atomically: a symlink keeps pointing at its target, which gets the bytes")
{
  TempDir dir;
  fs::create_directory(dir.path / "real");
  const fs::path target = dir.path / "real" / "train.sh";
  spit(target, "old\n");
  const fs::path link = dir.path / "train.sh";
  fs::create_symlink("real/train.sh", link);
  write_file_atomically(link.string(), "new\n");
  CHECK(fs::is_symlink(link));
  CHECK(fs::read_symlink(link) == "real/train.sh");
  CHECK(slurp(target) == "new\n");
  CHECK(entries(dir.path / "real") == 1);
}

TEST_CASE("write_file_atomically: a symlink loop and a directory are input errors, nothing written")
{
  TempDir dir;
  fs::create_symlink("b", dir.path / "a");
  fs::create_symlink("a", dir.path / "b");
  CHECK_THROWS_AS(write_file_atomically((dir.path / "a").string(), "x"), lg::InputError);
  CHECK_THROWS_AS(write_file_atomically(dir.path.string(), "x"), lg::InputError);
  CHECK(entries(dir.path) == 2);
}

TEST_CASE("write_file_atomically: a write that fails midway leaves the original whole and says why")
{
  // RLIMIT_FSIZE makes write() fail with EFBIG past the limit, the way a full
  // disk fails with ENOSPC: both go through the same error path.
  TempDir dir;
  const fs::path file = dir.path / "job.sbatch";
  const std::string original(100, 'o');
  spit(file, original);
  struct rlimit saved{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
  auto* old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 4096;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  std::string message;
  try {
    write_file_atomically(file.string(), std::string(10000, 'n'));
  } catch (const lg::SystemError& e) {
    message = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  CHECK(message.find("cannot write") != std::string::npos);
  CHECK(message.find("File too large") != std::string::npos);
  CHECK(slurp(file) == original);
  CHECK(entries(dir.path) == 1);
}
