#include "watch/hang_monitor.hpp"

#include "diagnose/catalogue.hpp"
#include "diagnose/category.hpp"

#include <fmt/format.h>

#include <utility>

namespace lg::watch {

HangMonitor::HangMonitor(const Clock& clock, HangPolicy policy)
  : m_clock(clock),
    m_policy(policy),
    m_progress(clock, policy.rule)
{}

void HangMonitor::observe(const LogLine& line)
{
  m_progress.observe(line);
}

HangLook HangMonitor::look(const ObservedState& state)
{
  HangLook look;
  if (!state.is(slurm::JobState::running) || m_cancelled) {
    return look;
  }
  look.stall = m_progress.stall();
  if (!look.stall) {
    if (m_seen) {
      look.resumed = true;
      m_seen.reset();
      m_hang.reset();
    }
    return look;
  }
  m_hang = look.stall;
  const Clock::time_point now = m_clock.now();
  if (!m_seen) {
    m_seen = now;
    look.reported = true;
  }
  if (m_policy.cancel && now - *m_seen >= m_policy.grace) {
    look.cancel_now = true;
    m_cancelled = true;
  }
  return look;
}

std::string describe_hang(const Stall& stall, std::string_view what_follows)
{
  return fmt::format("{} while Slurm says RUNNING: {}; {}", diagnose::to_string(diagnose::Category::hang_no_progress),
                     describe_stall(stall), what_follows);
}

bool apply_hang(diagnose::Diagnosis& diagnosis, const Stall& stall, const diagnose::Catalogue& catalogue)
{
  const std::string& logged = diagnosis.category;
  if (diagnose::is_failure(logged) && logged != diagnose::to_string(diagnose::Category::unknown)
      && logged != diagnose::to_string(diagnose::Category::slurm_time_limit)) {
    return false;
  }
  const std::string category(diagnose::to_string(diagnose::Category::hang_no_progress));
  if (diagnose::is_failure(diagnosis.category)) {
    diagnosis.consequences.insert(diagnosis.consequences.begin(), diagnosis.category);
  }
  diagnosis.category = category;
  diagnosis.confidence = 0.9;
  diagnosis.signature.clear();
  diagnosis.oom.reset();
  diagnosis.reason = "watch saw the iteration lines stop while Slurm said RUNNING: " + describe_stall(stall);
  std::vector<diagnose::Evidence> evidence;
  if (!stall.last_line.file.empty()) {
    evidence.push_back({stall.last_line.file, static_cast<std::size_t>(stall.last_line.line), stall.last_line.text});
  }
  evidence.push_back({"watch", 0, diagnosis.reason});
  evidence.insert(evidence.end(), diagnosis.evidence.begin(), diagnosis.evidence.end());
  diagnosis.evidence = std::move(evidence);
  const auto info = catalogue.categories.find(category);
  diagnosis.fix = info != catalogue.categories.end() ? info->second.fix : std::string();
  diagnosis.suggested_change = info != catalogue.categories.end() ? info->second.suggested_change : std::string();
  diagnosis.retryable = info != catalogue.categories.end() && info->second.retryable;
  diagnosis.first_failing_rank.reset();
  if (stall.silent_ranks.size() == 1 && stall.last_by_rank.size() > 1) {
    diagnosis.first_failing_rank = stall.silent_ranks.front();
  }
  return true;
}

}  // namespace lg::watch
