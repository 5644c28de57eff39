// The run journal: an append-only, crash-safe record of every attempt of a
// run, kept under <state dir>/runs/<run id>/.
//
// Each record is its own file, records/<seq>.json, written to a temporary
// file, fsync'd, then published with link(2), which fails if <seq> is taken.
// link() is atomic on local file systems and on NFS (unlike O_APPEND or
// flock), so two launchguard processes on different login nodes can append to
// the same run without locks, a record is either wholly there or absent after
// SIGKILL, and an acknowledged record is on disk.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace lg::launch {

struct Record
{
  std::int64_t seq = 0;  // 1, 2, … in append order
  std::string type;      // "run_created", "attempt_prepared", "submitted", …
  std::string time;      // UTC, ISO 8601
  nlohmann::json data;
};

class Journal
{
public:
  // Create a new run directory for a job called `name`; the run id is
  // "<UTC yyyymmdd-hhmmss>-<name, sanitised>-<4 hex>". Throws SystemError.
  static Journal create(const std::filesystem::path& state_dir, std::string_view name);

  // Open an existing run. Throws InputError when it does not exist.
  static Journal open(const std::filesystem::path& state_dir, std::string_view run_id);

  const std::string& run_id() const { return m_run_id; }
  const std::filesystem::path& dir() const { return m_dir; }

  // Append a record; it is durable when this returns. Throws SystemError
  // (disk full, permissions) without leaving a partial record behind.
  Record append(std::string_view type, nlohmann::json data);

  // All complete records in order. Unreadable record files (written by a
  // newer version, or damaged) are skipped and counted in `damaged`.
  std::vector<Record> records(int* damaged = nullptr) const;

  // Take the claim called `name` (claims/<name>) for this process: true if
  // it was free, already ours, or stale (its holder is a dead process on this
  // host, or it is older than `stale_after`). Published with link(2), so two
  // drivers of one run on different login nodes never both hold it. Used so
  // that only one driver calls sbatch for an attempt.
  bool claim(std::string_view name, std::chrono::seconds stale_after) const;

  // Write `content` to dir()/relative atomically (temp + fsync + rename).
  void write_artifact(std::string_view relative, std::string_view content) const;

private:
  Journal(std::string run_id, std::filesystem::path dir);

  std::string m_run_id;
  std::filesystem::path m_dir;
};

// $XDG_STATE_HOME/launchguard (default ~/.local/state/launchguard).
std::filesystem::path default_state_dir();

// Run ids under `state_dir`, oldest first.
std::vector<std::string> list_runs(const std::filesystem::path& state_dir);

// Return `name` reduced to [A-Za-z0-9._-], at most 40 characters, never empty.
std::string sanitise_name(std::string_view name);

} // namespace lg::launch
