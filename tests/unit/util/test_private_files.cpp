// util/private_files: launchguard's state is refused when another user owns
// it or can write it (the ssh ~/.ssh rule), created 0700/0600, and locked
// with link(2). Cases that need a second owner chown to nobody (65534) and
// run only as root.
#include "support/file_mode.hpp"
#include "util/error.hpp"
#include "util/private_files.hpp"

#include "support/temp_dir.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
namespace pf = lg::private_files;

namespace {

using TempDir = lg::testing::TempDir;

std::string refusal(const fs::path& path)
{
  try {
    pf::require_private(path, "the state directory");
  } catch (const lg::InputError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_SUITE_BEGIN("util");

TEST_CASE("private_files: directories are created 0700 and files 0600, whatever the umask")
{
  TempDir dir;
  const mode_t old = ::umask(0);
  pf::make_private_dir(dir.path / "a" / "b", "the state directory");
  pf::replace_file(dir.path / "a" / "b" / "f", "x");
  pf::write_new_file(dir.path / "a" / "g", "y");
  ::umask(old);
  CHECK(lg::testing::file_mode(dir.path / "a") == 0700U);
  CHECK(lg::testing::file_mode(dir.path / "a" / "b") == 0700U);
  CHECK(lg::testing::file_mode(dir.path / "a" / "b" / "f") == 0600U);
  CHECK(lg::testing::file_mode(dir.path / "a" / "g") == 0600U);
}

TEST_CASE("private_files: a group- or world-writable directory is refused with the chmod to fix it")
{
  TempDir dir;
  ::chmod(dir.path.c_str(), 0777);
  const std::string message = refusal(dir.path);
  CHECK(message.find("writable by everyone (mode 0777)") != std::string::npos);
  ::chmod(dir.path.c_str(), 0770);
  CHECK(refusal(dir.path).find("writable by its group") != std::string::npos);
  ::chmod(dir.path.c_str(), 0755);  // readable is fine, as for ssh
  CHECK(refusal(dir.path).empty());
  CHECK(refusal(dir.path / "absent").empty());
}

TEST_CASE("private_files: a directory or a symbolic link owned by someone else is refused")
{
  if (::geteuid() != 0) {
    MESSAGE("needs root to chown to another user; skipped");
    return;
  }
  TempDir dir;
  fs::create_directory(dir.path / "theirs");
  REQUIRE(::chown((dir.path / "theirs").c_str(), 65534, 65534) == 0);
  CHECK(refusal(dir.path / "theirs").find("owned by uid 65534") != std::string::npos);
  // A planted symlink to a directory of ours, owned by the stranger.
  fs::create_directory(dir.path / "mine");
  fs::create_directory_symlink(dir.path / "mine", dir.path / "link");
  REQUIRE(::lchown((dir.path / "link").c_str(), 65534, 65534) == 0);
  CHECK(refusal(dir.path / "link").find("symbolic link owned by uid 65534") != std::string::npos);
  // Our own link to a stranger's directory: judged by the target.
  fs::create_directory_symlink(dir.path / "theirs", dir.path / "mylink");
  CHECK(refusal(dir.path / "mylink").find("owned by uid 65534") != std::string::npos);
}

TEST_CASE("private_files: a lock is held by one process at a time and given back")
{
  TempDir dir;
  const fs::path lock = dir.path / "lock";
  CHECK(pf::take_lock(lock, std::chrono::seconds(60)));
  CHECK(pf::take_lock(lock, std::chrono::seconds(60)));  // ours already
  CHECK(lg::testing::file_mode(lock) == 0600U);
  // Another live process on this host holds it: not ours. (pid 1 is alive.)
  std::ofstream(dir.path / "other") << "otherhost 1\n";
  pf::release_lock(lock);
  CHECK_FALSE(fs::exists(lock));
  fs::rename(dir.path / "other", lock);
  CHECK_FALSE(pf::take_lock(lock, std::chrono::seconds(60)));
  pf::release_lock(lock);  // not ours: left alone
  CHECK(fs::exists(lock));
  // Stale by age: taken over.
  fs::last_write_time(lock, fs::file_time_type::clock::now() - std::chrono::minutes(5));
  CHECK(pf::take_lock(lock, std::chrono::seconds(60)));
}

TEST_SUITE_END();
