#include "launch/journal.hpp"

#include "util/error.hpp"
#include "util/fault.hpp"
#include "util/input.hpp"
#include "util/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>

namespace lg::launch {

namespace fs = std::filesystem;

namespace {

// UTC now as "20261129-200102" (compact) or "2026-11-29T20:01:02Z".
std::string utc_now(bool compact)
{
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[64];
  if (compact) {
    std::strftime(buffer, sizeof buffer, "%Y%m%d-%H%M%S", &tm);
  } else {
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  }
  return buffer;
}

// Create `dir` and its parents; a failure (disk full, permissions) is a
// SystemError with the reason, not a std::filesystem exception.
void make_dirs(const fs::path& dir)
{
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    SystemError error("cannot create '{}': {}", dir.string(), ec.message());
    if (ec == std::errc::no_space_on_device) {
      error.hint = "the state directory's file system is full; free space or use --state-dir";
    }
    throw error;
  }
}

[[noreturn]] void throw_errno(const std::string& what, const fs::path& path)
{
  const int error_number = errno;
  SystemError error("{} '{}': {}", what, path.string(), std::strerror(error_number));
  if (error_number == ENOSPC || error_number == EDQUOT) {
    error.hint = "the state directory's file system is full; free space or use --state-dir";
  }
  throw error;
}

// Write `content` to a new file at `path` and fsync it.
void write_synced(const fs::path& path, std::string_view content)
{
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw_errno("cannot create", path);
  }
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      const int saved = errno;
      ::close(fd);
      ::unlink(path.c_str());
      errno = saved;
      throw_errno("cannot write", path);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int saved = errno;
    ::close(fd);
    ::unlink(path.c_str());
    errno = saved;
    throw_errno("cannot sync", path);
  }
  ::close(fd);
}

void sync_dir(const fs::path& dir)
{
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

std::string temp_name()
{
  static std::mt19937_64 rng{std::random_device{}()};
  return std::to_string(::getpid()) + "-" + std::to_string(rng());
}

std::int64_t next_seq(const fs::path& records)
{
  std::int64_t highest = 0;
  std::error_code ec;
  for (fs::directory_iterator it(records, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string stem = it->path().stem().string();
    if (it->path().extension() == ".json" && !stem.empty()
        && std::all_of(stem.begin(), stem.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      highest = std::max<std::int64_t>(highest, std::stoll(stem));
    }
  }
  return highest + 1;
}

std::string seq_name(std::int64_t seq)
{
  std::string digits = std::to_string(seq);
  return std::string(digits.size() < 8 ? 8 - digits.size() : 0, '0') + digits + ".json";
}

} // namespace

std::string sanitise_name(std::string_view name)
{
  std::string out;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
                    || c == '_' || c == '-';
    out += ok ? c : '_';
    if (out.size() >= 40) {
      break;
    }
  }
  if (out.empty() || out.front() == '.') {
    out.insert(out.begin(), 'j');
  }
  return out;
}

Journal::Journal(std::string run_id, fs::path dir)
  : m_run_id(std::move(run_id)),
    m_dir(std::move(dir))
{
}

Journal Journal::create(const fs::path& state_dir, std::string_view name)
{
  const fs::path runs = state_dir / "runs";
  std::error_code ec;
  fs::create_directories(runs, ec);
  if (ec) {
    SystemError error("cannot create the state directory '{}': {}", runs.string(), ec.message());
    error.hint = "set --state-dir or XDG_STATE_HOME to a writable directory";
    throw error;
  }
  static std::mt19937 rng{std::random_device{}()};
  for (int tries = 0; tries < 100; ++tries) {
    char suffix[8];
    std::snprintf(suffix, sizeof suffix, "%04x", static_cast<unsigned>(rng() & 0xffffU));
    const std::string run_id = utc_now(true) + "-" + sanitise_name(name) + "-" + suffix;
    const fs::path dir = runs / run_id;
    if (::mkdir(dir.c_str(), 0755) == 0) {
      make_dirs(dir / "records");
      sync_dir(runs);
      return Journal(run_id, dir);
    }
    if (errno != EEXIST) {
      throw_errno("cannot create run directory", dir);
    }
  }
  SystemError error("cannot find a free run id under '{}'", runs.string());
  throw error;
}

Journal Journal::open(const fs::path& state_dir, std::string_view run_id)
{
  if (run_id.empty() || run_id.find('/') != std::string_view::npos || run_id.find("..") != std::string_view::npos) {
    InputError error("'{}' is not a run id", run_id);
    error.hint = "see 'launchguard runs' for the list";
    throw error;
  }
  const fs::path dir = state_dir / "runs" / std::string(run_id);
  std::error_code ec;
  if (!fs::is_directory(dir / "records", ec)) {
    InputError error("no run '{}' in '{}'", run_id, (state_dir / "runs").string());
    error.hint = "see 'launchguard runs' for the list, or pass --state-dir";
    throw error;
  }
  return Journal(std::string(run_id), dir);
}

Record Journal::append(std::string_view type, nlohmann::json data)
{
  const fs::path records = m_dir / "records";
  Record record;
  record.type = std::string(type);
  record.time = utc_now(false);
  record.data = std::move(data);
  const fs::path temp = records / (".tmp-" + temp_name());
  for (int tries = 0; tries < 1000; ++tries) {
    record.seq = next_seq(records);
    const nlohmann::json document = {
      {"seq", record.seq}, {"type", record.type}, {"time", record.time}, {"data", record.data}};
    write_synced(temp, document.dump() + "\n");
    const fs::path target = records / seq_name(record.seq);
    const int rc = ::link(temp.c_str(), target.c_str());
    const int saved = errno;
    ::unlink(temp.c_str());
    if (rc == 0) {
      sync_dir(records);
      fault_point(record.type);
      return record;
    }
    if (saved != EEXIST) {
      errno = saved;
      throw_errno("cannot publish journal record", target);
    }
  }
  SystemError error("journal '{}' is too busy to append", m_dir.string());
  throw error;
}

std::vector<Record> Journal::records(int* damaged) const
{
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(m_dir / "records", ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".json" && it->path().filename().string().front() != '.') {
      files.push_back(it->path());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<Record> out;
  int bad = 0;
  for (const auto& file : files) {
    std::string text;
    try {
      text = read_file(file.string(), "journal record", k_max_record_bytes);
    } catch (const InputError&) {
      ++bad;  // unreadable (a planted FIFO or directory): skipped like a garbled record
      continue;
    }
    const auto document = nlohmann::json::parse(text, nullptr, false);
    if (document.is_discarded() || !document.is_object() || !document.contains("seq")
        || !document["seq"].is_number_integer() || !document.contains("type") || !document["type"].is_string()) {
      ++bad;
      continue;
    }
    Record record;
    record.seq = document["seq"].get<std::int64_t>();
    record.type = document["type"].get<std::string>();
    record.time = document.value("time", "");
    record.data = document.value("data", nlohmann::json::object());
    out.push_back(std::move(record));
  }
  if (damaged != nullptr) {
    *damaged = bad;
  }
  return out;
}

bool Journal::claim(std::string_view name, std::chrono::seconds stale_after) const
{
  const fs::path dir = m_dir / "claims";
  make_dirs(dir);
  const fs::path target = dir / std::string(name);
  const std::string host = process::host_name();
  const nlohmann::json mine = {{"host", host}, {"pid", ::getpid()}, {"time", utc_now(false)}};
  for (int tries = 0; tries < 3; ++tries) {
    const fs::path temp = dir / (".tmp-" + temp_name());
    write_synced(temp, mine.dump());
    const int rc = ::link(temp.c_str(), target.c_str());
    ::unlink(temp.c_str());
    if (rc == 0) {
      return true;
    }
    std::string text;
    try {
      text = read_file(target.string(), "claim", k_max_record_bytes);
    } catch (const InputError&) {
      return false;  // not readable as a claim: someone else's; ask again later
    }
    const auto holder = nlohmann::json::parse(text, nullptr, false);
    if (holder.is_discarded() || !holder.is_object()) {
      return false;  // being written right now; ask again later
    }
    const bool same_host = holder.value("host", "") == host;
    const int pid = holder.value("pid", 0);
    if (same_host && pid == ::getpid()) {
      return true;
    }
    std::error_code ec;
    const auto age = fs::file_time_type::clock::now() - fs::last_write_time(target, ec);
    const bool dead = same_host && pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH;
    if (!dead && (ec || age < stale_after)) {
      return false;
    }
    // Stale: move it aside (only one of several stealers can) and retry.
    const fs::path aside = dir / (".stale-" + temp_name());
    if (::rename(target.c_str(), aside.c_str()) == 0) {
      ::unlink(aside.c_str());
    }
  }
  return false;
}

void Journal::write_artifact(std::string_view relative, std::string_view content) const
{
  const fs::path target = m_dir / std::string(relative);
  make_dirs(target.parent_path());
  const fs::path temp = target.parent_path() / (".tmp-" + temp_name());
  write_synced(temp, content);
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    ::unlink(temp.c_str());
    throw_errno("cannot write", target);
  }
  sync_dir(target.parent_path());
}

fs::path default_state_dir()
{
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg != nullptr && *xdg != '\0') {
    return fs::path(xdg) / "launchguard";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / ".local" / "state" / "launchguard";
  }
  return fs::path(".launchguard-state");
}

std::vector<std::string> list_runs(const fs::path& state_dir)
{
  std::vector<std::string> runs;
  std::error_code ec;
  for (fs::directory_iterator it(state_dir / "runs", ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && fs::is_directory(it->path() / "records", ec)) {
      runs.push_back(it->path().filename().string());
    }
  }
  std::sort(runs.begin(), runs.end());
  return runs;
}

} // namespace lg::launch
