#include "launch/journal.hpp"

#include "util/error.hpp"
#include "util/fault.hpp"
#include "util/input.hpp"
#include "util/private_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
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

// The JSON type of every field a record may carry (run_state.cpp and the
// runner read them by these names). A record whose data is not an object,
// or has one of these fields with another type (valid JSON such as
// "data": [] or a numeric job_id), is damaged: skipped and counted, like a
// garbled file, so that one bad record never stops `runs` or a resume.
enum class Field { string, integer, number, boolean, object, array, strings };

const std::map<std::string_view, Field>& field_types()
{
  static const std::map<std::string_view, Field> types = {
    {"attempt", Field::integer},      {"at", Field::integer},
    {"max_attempts", Field::integer}, {"line", Field::integer},
    {"job_id", Field::string},        {"tag", Field::string},
    {"fix", Field::string},           {"reason", Field::string},
    {"script", Field::string},        {"state", Field::string},
    {"outcome", Field::string},       {"category", Field::string},
    {"suggested_change", Field::string}, {"host", Field::string},
    {"name", Field::string},          {"submit_dir", Field::string},
    {"error", Field::string},         {"last_iteration", Field::integer},
    {"confidence", Field::number},    {"max_allocated_bytes", Field::number},
    {"retry_infra", Field::boolean},  {"recovered", Field::boolean},
    {"retryable", Field::boolean},    {"source", Field::object},
    {"evidence", Field::array},       {"sbatch_args", Field::strings},
    {"exclude", Field::strings},      {"silent_ranks", Field::array},
    {"silent_for_s", Field::number},  {"threshold_s", Field::number},
    {"flight_recorder_dumps", Field::strings},
    {"hang_floor_s", Field::number},  {"hang_grace_s", Field::number},
    {"hang_cancel", Field::boolean},
  };
  return types;
}

bool has_type(const nlohmann::json& value, Field type)
{
  switch (type) {
  case Field::string: return value.is_string();
  case Field::integer: return value.is_number_integer();
  case Field::number: return value.is_number();
  case Field::boolean: return value.is_boolean();
  case Field::object: return value.is_object();
  case Field::array: return value.is_array();
  case Field::strings:
    return value.is_array() && std::all_of(value.begin(), value.end(), [](const auto& v) { return v.is_string(); });
  }
  return false;
}

bool well_formed(const nlohmann::json& data)
{
  if (!data.is_object()) {
    return false;
  }
  const auto& types = field_types();
  for (const auto& [key, value] : data.items()) {
    const auto it = types.find(key);
    if (it != types.end() && !has_type(value, it->second)) {
      return false;
    }
  }
  return true;
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
  private_files::make_private_dir(state_dir, "the state directory");
  private_files::make_private_dir(runs, "the runs directory");
  static std::mt19937 rng{std::random_device{}()};
  for (int tries = 0; tries < 100; ++tries) {
    char suffix[8];
    std::snprintf(suffix, sizeof suffix, "%04x", static_cast<unsigned>(rng() & 0xffffU));
    const std::string run_id = utc_now(true) + "-" + sanitise_name(name) + "-" + suffix;
    const fs::path dir = runs / run_id;
    if (::mkdir(dir.c_str(), 0700) == 0) {
      private_files::make_private_dir(dir / "records", "the run's records directory");
      private_files::sync_dir(runs);
      return Journal(run_id, dir);
    }
    if (errno != EEXIST) {
      private_files::throw_errno("cannot create run directory", dir);
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
  private_files::require_private(state_dir, "the state directory");
  private_files::require_private(state_dir / "runs", "the runs directory");
  private_files::require_private(dir, "the run directory");
  private_files::require_private(dir / "records", "the run's records directory");
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
  const fs::path temp = records / (".tmp-" + private_files::unique_name());
  for (int tries = 0; tries < 1000; ++tries) {
    record.seq = next_seq(records);
    const nlohmann::json document = {
      {"seq", record.seq}, {"type", record.type}, {"time", record.time}, {"data", record.data}};
    private_files::write_new_file(temp, document.dump() + "\n");
    const fs::path target = records / seq_name(record.seq);
    const int rc = ::link(temp.c_str(), target.c_str());
    const int saved = errno;
    ::unlink(temp.c_str());
    if (rc == 0) {
      private_files::sync_dir(records);
      fault_point(record.type);
      return record;
    }
    if (saved != EEXIST) {
      errno = saved;
      private_files::throw_errno("cannot publish journal record", target);
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
    private_files::require_private(file, "the journal record");
    std::string text;
    try {
      text = read_file(file.string(), "journal record", k_max_record_bytes);
    } catch (const InputError&) {
      ++bad;  // unreadable (a planted FIFO or directory): skipped like a garbled record
      continue;
    }
    const auto document = nlohmann::json::parse(text, nullptr, false);
    if (document.is_discarded() || !document.is_object() || !document.contains("seq")
        || !document["seq"].is_number_integer() || !document.contains("type") || !document["type"].is_string()
        || !well_formed(document.value("data", nlohmann::json::object()))) {
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
  private_files::make_private_dir(dir, "the run's claims directory");
  return private_files::take_lock(dir / std::string(name), stale_after);
}

void Journal::write_artifact(std::string_view relative, std::string_view content) const
{
  const fs::path target = m_dir / std::string(relative);
  private_files::make_private_dir(target.parent_path(), "the attempt directory");
  private_files::replace_file(target, content);
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
  private_files::require_private(state_dir, "the state directory");
  private_files::require_private(state_dir / "runs", "the runs directory");
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
