#include "watch/poll_cache.hpp"

#include "slurm/errors.hpp"
#include "util/error.hpp"
#include "util/input.hpp"
#include "util/private_files.hpp"
#include "util/process.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>

namespace lg::watch {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

namespace {

constexpr std::int64_t k_registration_refresh_ms = 5 * 60 * 1000;  // rewrite at least this often
constexpr std::int64_t k_registration_expiry_ms = 15 * 60 * 1000;  // another host's, unrefreshed
constexpr std::chrono::seconds k_lock_stale{120};  // longer than one sacct + squeue (2 × 30 s timeouts)
constexpr milliseconds k_wait_slice{200};
// A process whose jobs the last answer lacks (it has just started, or just
// submitted) and which finds that answer younger than this waits for the
// next shared question, or asks itself once the answer is this old: the
// processes that start together then share one question instead of each
// asking Slurm (bench/slurm_load: 100 runs made 18 sacct a minute, 1 run 5).
// An answer this process wrote itself is no reason to wait: its own next job
// (a retry's attempt) is then asked for at once, as when it runs alone.
constexpr milliseconds k_newcomer_wait{5000};
constexpr std::size_t k_max_answer_bytes = 64u << 20;

std::int64_t system_ms()
{
  return std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

nlohmann::json exit_json(const std::optional<slurm::ExitStatus>& exit)
{
  return exit ? nlohmann::json::array({exit->code, exit->signal}) : nlohmann::json();
}

std::optional<slurm::ExitStatus> exit_of(const nlohmann::json& value)
{
  if (value.is_array() && value.size() == 2 && value[0].is_number_integer() && value[1].is_number_integer()) {
    return slurm::ExitStatus{value[0].get<int>(), value[1].get<int>()};
  }
  return std::nullopt;
}

std::string text_of(const nlohmann::json& object, const char* key)
{
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

nlohmann::json to_json(const slurm::JobStatus& status)
{
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& step : status.steps) {
    steps.push_back({{"step", step.step},
                     {"name", step.name},
                     {"state", step.raw_state},
                     {"exit", exit_json(step.exit)},
                     {"nodes", step.nodes}});
  }
  return {{"id", status.id},
          {"name", status.name},
          {"state", status.raw_state.empty() ? std::string(slurm::to_string(status.state)) : status.raw_state},
          {"exit", exit_json(status.exit)},
          {"elapsed", status.elapsed ? nlohmann::json(status.elapsed->count()) : nlohmann::json()},
          {"nodes", status.nodes},
          {"reason", status.reason},
          {"comment", status.comment},
          {"squeue", status.source == slurm::StatusSource::squeue},
          {"steps", steps}};
}

slurm::JobStatus status_of(const nlohmann::json& value)
{
  slurm::JobStatus status;
  status.id = text_of(value, "id");
  status.name = text_of(value, "name");
  status.raw_state = text_of(value, "state");
  status.state = slurm::parse_job_state(status.raw_state);
  status.exit = exit_of(value.value("exit", nlohmann::json()));
  if (const auto it = value.find("elapsed"); it != value.end() && it->is_number_integer()) {
    status.elapsed = std::chrono::seconds(it->get<long long>());
  }
  status.nodes = text_of(value, "nodes");
  status.reason = text_of(value, "reason");
  status.comment = text_of(value, "comment");
  const auto squeue = value.find("squeue");
  status.source = squeue != value.end() && squeue->is_boolean() && squeue->get<bool>() ? slurm::StatusSource::squeue
                                                                                       : slurm::StatusSource::sacct;
  if (const auto steps = value.find("steps"); steps != value.end() && steps->is_array()) {
    for (const auto& s : *steps) {
      if (!s.is_object()) {
        continue;
      }
      slurm::StepStatus step;
      step.step = text_of(s, "step");
      step.name = text_of(s, "name");
      step.raw_state = text_of(s, "state");
      step.state = slurm::parse_job_state(step.raw_state);
      step.exit = exit_of(s.value("exit", nlohmann::json()));
      step.nodes = text_of(s, "nodes");
      status.steps.push_back(std::move(step));
    }
  }
  return status;
}

// What a process does with the shared answer it finds.
enum class PollStep { use_answer, wait, ask_slurm };

struct AnswerAge
{
  milliseconds when_asked{0};  // its age when the question came (negative: written since)
  milliseconds now{0};
};

// `covers`: the answer lists every id asked; `own`: this process wrote it.
// `waited`: since the question came.
PollStep poll_step(bool valid, bool covers, bool own, AnswerAge age, milliseconds max_age, milliseconds waited)
{
  if (!valid || age.now < -milliseconds(1000)) {
    return PollStep::ask_slurm;  // none, or from the future (another host's clock): ask
  }
  if (covers) {
    return age.when_asked < max_age ? PollStep::use_answer : PollStep::ask_slurm;
  }
  // Registered now: the next question, ours or another's, covers us.
  return !own && age.now < k_newcomer_wait && waited < k_newcomer_wait ? PollStep::wait : PollStep::ask_slurm;
}

// This host's name as a file name ('/' cannot be in one).
std::string host_file_name()
{
  std::string host = process::host_name();
  std::replace(host.begin(), host.end(), '/', '_');
  return host;
}

} // namespace

struct PollCache::Answer
{
  bool valid = false;
  std::int64_t at_ms = 0;
  std::set<slurm::JobId> ids;
  std::string error;
  std::vector<slurm::JobStatus> statuses;

  bool covers(std::span<const slurm::JobId> wanted) const
  {
    return valid && std::all_of(wanted.begin(), wanted.end(), [&](const auto& id) { return ids.count(id) != 0; });
  }

  std::vector<slurm::JobStatus> serve(std::span<const slurm::JobId> wanted) const
  {
    if (!error.empty()) {
      throw slurm::TransientSlurmError("{}", error);
    }
    std::vector<slurm::JobStatus> out;
    for (const auto& status : statuses) {
      if (std::find(wanted.begin(), wanted.end(), status.id) != wanted.end()) {
        out.push_back(status);
      }
    }
    return out;
  }

  static Answer read(const fs::path& path)
  {
    Answer answer;
    std::string text;
    try {
      private_files::require_private(path, "the poll cache");
      text = read_file(path.string(), "poll cache", k_max_answer_bytes);
    } catch (const InputError&) {
      return answer;  // absent or unreadable: no answer
    }
    const auto document = nlohmann::json::parse(text, nullptr, false);
    if (!document.is_object() || !document.contains("at_ms") || !document["at_ms"].is_number_integer()) {
      return answer;
    }
    answer.at_ms = document["at_ms"].get<std::int64_t>();
    for (const auto& id : document.value("ids", nlohmann::json::array())) {
      if (id.is_string()) {
        answer.ids.insert(id.get<std::string>());
      }
    }
    answer.error = text_of(document, "error");
    for (const auto& status : document.value("statuses", nlohmann::json::array())) {
      if (status.is_object()) {
        answer.statuses.push_back(status_of(status));
      }
    }
    answer.valid = true;
    return answer;
  }

  void write(const fs::path& path) const
  {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& status : statuses) {
      list.push_back(to_json(status));
    }
    const nlohmann::json document = {{"at_ms", at_ms}, {"ids", ids}, {"error", error}, {"statuses", list}};
    private_files::replace_file(path, document.dump() + "\n");
  }
};

PollCache::PollCache(fs::path dir, slurm::Client& client, Clock& clock, std::function<std::int64_t()> wall_ms)
  : m_dir(std::move(dir)),
    m_client(client),
    m_clock(clock),
    m_wall_ms(wall_ms ? std::move(wall_ms) : std::function<std::int64_t()>(system_ms))
{
  private_files::make_private_dir(m_dir, "the poll cache directory");
  private_files::make_private_dir(m_dir / "watchers", "the poll cache directory");
  m_registration = m_dir / "watchers" / (host_file_name() + "-" + std::to_string(::getpid()));
}

PollCache::~PollCache()
{
  std::error_code ec;
  fs::remove(m_registration, ec);
}

void PollCache::register_ids(std::span<const slurm::JobId> ids)
{
  std::vector<slurm::JobId> sorted(ids.begin(), ids.end());
  std::sort(sorted.begin(), sorted.end());
  const std::int64_t now = m_wall_ms();
  if (sorted == m_registered && now - m_registered_at < k_registration_refresh_ms) {
    return;
  }
  private_files::replace_file(m_registration, join(sorted, "\n") + "\n");
  m_registered = std::move(sorted);
  m_registered_at = now;
}

std::vector<slurm::JobId> PollCache::everyone_ids(std::span<const slurm::JobId> mine) const
{
  std::set<slurm::JobId> ids(mine.begin(), mine.end());
  const std::string host = host_file_name();
  std::error_code ec;
  for (fs::directory_iterator it(m_dir / "watchers", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.front() == '.' || it->path() == m_registration) {
      continue;
    }
    const std::size_t dash = name.rfind('-');
    if (dash == std::string::npos) {
      continue;
    }
    const bool same_host = name.substr(0, dash) == host;
    const long pid = std::strtol(name.c_str() + dash + 1, nullptr, 10);
    std::error_code age_ec;
    const auto age = fs::file_time_type::clock::now() - fs::last_write_time(it->path(), age_ec);
    const bool dead = same_host ? (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH))
                                : (age_ec || age > milliseconds(k_registration_expiry_ms));
    if (dead) {
      std::error_code remove_ec;
      fs::remove(it->path(), remove_ec);
      continue;
    }
    std::string text;
    try {
      private_files::require_private(it->path(), "a poll cache registration");
      text = read_file(it->path().string(), "poll cache registration", 1u << 20);
    } catch (const InputError&) {
      continue;
    }
    for (const auto& id : split(text, '\n')) {
      const std::string word(trim(id));
      if (!word.empty()) {
        ids.insert(word);
      }
    }
  }
  return {ids.begin(), ids.end()};
}

QueryAnswer PollCache::query(std::span<const slurm::JobId> ids, milliseconds max_age)
{
  // The cache only saves Slurm work: when it cannot be written (a full
  // disk), ask Slurm directly; the journal reports the disk itself.
  try {
    register_ids(ids);
    return shared_query(ids, max_age);
  } catch (const slurm::TransientSlurmError&) {
    m_asking_slurm = false;
    throw;  // Slurm did not answer (now, or in the shared answer)
  } catch (const SystemError&) {
    if (m_asking_slurm) {
      m_asking_slurm = false;
      throw;  // Slurm's error, not the cache's
    }
    ++m_questions;
    return m_client.query(ids);
  }
}

QueryAnswer PollCache::shared_query(std::span<const slurm::JobId> ids, milliseconds max_age)
{
  const fs::path answer_path = m_dir / "answer.json";
  const fs::path lock = m_dir / "lock";
  const std::int64_t asked_at = m_wall_ms();
  const auto entered = m_clock.now();
  auto step = [&](const Answer& answer) {
    const AnswerAge age{milliseconds(asked_at - answer.at_ms), milliseconds(m_wall_ms() - answer.at_ms)};
    const auto waited = std::chrono::duration_cast<milliseconds>(m_clock.now() - entered);
    return poll_step(answer.valid, answer.covers(ids), answer.at_ms == m_own_answer_at, age, max_age, waited);
  };
  auto serve = [&](const Answer& answer) {
    return QueryAnswer(answer.serve(ids), std::max(milliseconds(m_wall_ms() - answer.at_ms), milliseconds(0)));
  };
  while (true) {
    const Answer cached = Answer::read(answer_path);
    const PollStep next = step(cached);
    if (next == PollStep::use_answer) {
      return serve(cached);
    }
    if (next == PollStep::wait || !private_files::take_lock(lock, k_lock_stale)) {
      m_clock.sleep(k_wait_slice);  // for the next shared question, or for the one being asked
      continue;
    }
    Answer answer = Answer::read(answer_path);  // it may have just been written
    if (step(answer) == PollStep::use_answer) {
      private_files::release_lock(lock);
      return serve(answer);
    }
    const auto everyone = everyone_ids(ids);
    answer = Answer{};
    answer.valid = true;
    answer.ids.insert(everyone.begin(), everyone.end());
    ++m_questions;
    try {
      m_asking_slurm = true;
      answer.statuses = m_client.query(everyone);
      m_asking_slurm = false;
    } catch (const slurm::TransientSlurmError& e) {
      m_asking_slurm = false;
      answer.error = e.what();
    } catch (...) {
      private_files::release_lock(lock);
      throw;
    }
    answer.at_ms = m_wall_ms();
    try {
      answer.write(answer_path);
      m_own_answer_at = answer.at_ms;
    } catch (const SystemError&) {
      // Not shared this time (disk full); the answer is still ours.
    }
    private_files::release_lock(lock);
    return QueryAnswer(answer.serve(ids));
  }
}

} // namespace lg::watch
