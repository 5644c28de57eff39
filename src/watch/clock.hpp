// The time a watch session runs on, injected so that tests drive a session
// through hours of backoff in microseconds: the real clock sleeps, a
// ManualClock only moves its hands.
#pragma once

#include <chrono>

namespace lg::watch {

class Clock
{
public:
  using time_point = std::chrono::steady_clock::time_point;

  virtual ~Clock() = default;
  virtual time_point now() const;
  virtual void sleep(std::chrono::milliseconds duration);

  // The process-wide real clock.
  static Clock& real();
};

// A clock that stands still until slept on; sleep(d) moves it by d.
class ManualClock final : public Clock
{
public:
  time_point now() const override { return m_now; }
  void sleep(std::chrono::milliseconds duration) override { m_now += duration; }
  void advance(std::chrono::milliseconds duration) { m_now += duration; }

private:
  time_point m_now{std::chrono::hours(24)};
};

} // namespace lg::watch
