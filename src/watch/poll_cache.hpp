// One user's launchguard processes share their Slurm questions: every
// `submit`, `watch RUN_ID` and `watch JOB_ID…` of the user on a login node
// (or on several, with the state directory on NFS) asks through
// <state dir>/poll/, so the Slurm commands per minute do not grow with the
// number of runs being watched.
//
//   poll/watchers/<host>-<pid>  the job ids one process watches (its
//                               registration; dropped when the process dies
//                               or, from another host, after 15 minutes
//                               without a question)
//   poll/answer.json            the last answer: when, for which ids, the
//                               statuses (or Slurm's error)
//   poll/lock                   held by the process asking Slurm; link(2),
//                               so NFS does not break it; stale after 2 min
//
// A question that an answer younger than `max_age` covers is served from
// it, with the answer's age: the session counts its next check from the
// answer's time, so every process keeps the shared answers' times and the
// next question serves them all (watch/session.hpp). Otherwise one process
// takes the lock and asks Slurm once for the jobs of every registered
// process; the others wait for that answer. A process whose jobs the last
// answer, another process's, lacks waits up to 5 s for the next one. All files are private
// (util/private_files.hpp).
#pragma once

#include "slurm/client.hpp"
#include "watch/clock.hpp"
#include "watch/session.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace lg::watch {

class PollCache
{
public:
  // `dir` is <state dir>/poll (created 0700). `wall_ms` is the shared time
  // base (milliseconds since the epoch; the system clock by default), since
  // answers are judged across processes and hosts.
  PollCache(std::filesystem::path dir, slurm::Client& client, Clock& clock,
            std::function<std::int64_t()> wall_ms = {});
  ~PollCache();
  PollCache(const PollCache&) = delete;
  PollCache& operator=(const PollCache&) = delete;

  // The statuses of `ids` Slurm knows and their age, from an answer younger
  // than `max_age`, asking Slurm (once, for every registered process) when
  // there is none. Throws slurm::TransientSlurmError when Slurm did not
  // answer.
  QueryAnswer query(std::span<const slurm::JobId> ids, std::chrono::milliseconds max_age);

  // Slurm questions this process asked itself (the others' answers it used
  // do not count).
  long slurm_questions() const { return m_questions; }

private:
  struct Answer;

  void register_ids(std::span<const slurm::JobId> ids);
  QueryAnswer shared_query(std::span<const slurm::JobId> ids, std::chrono::milliseconds max_age);
  std::vector<slurm::JobId> everyone_ids(std::span<const slurm::JobId> mine) const;

  std::filesystem::path m_dir;
  slurm::Client& m_client;
  Clock& m_clock;
  std::function<std::int64_t()> m_wall_ms;
  std::filesystem::path m_registration;
  std::vector<slurm::JobId> m_registered;
  std::int64_t m_registered_at = 0;
  long m_questions = 0;
  std::int64_t m_own_answer_at = -1;  // when this process last wrote the shared answer
  bool m_asking_slurm = false;  // an error now is Slurm's, not the cache's
};

} // namespace lg::watch
