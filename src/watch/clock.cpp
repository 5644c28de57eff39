#include "watch/clock.hpp"

#include <thread>

namespace lg::watch {

Clock::time_point Clock::now() const
{
  return std::chrono::steady_clock::now();
}

void Clock::sleep(std::chrono::milliseconds duration)
{
  std::this_thread::sleep_for(duration);
}

Clock& Clock::real()
{
  static Clock clock;
  return clock;
}

} // namespace lg::watch
