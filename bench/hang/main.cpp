// bench_hang: how long after the last iteration line watch reports a hang,
// and whether it ever reports one while iterations still come. Generated
// Megatron-LM training_log() lines (megatron/training/training.py:
// " iteration {:8d}/{:8d} | … | elapsed time per iteration (ms): {:.1f} |"),
// 8 ranks prefixed "[rankN]:" as torchrun tees them, step times with ±20 %
// jitter, log intervals 1/10/100; one rank stops first, the others one line
// later (they wait in its collective). The watcher reads every 5 s.
#include "watch/clock.hpp"
#include "watch/progress.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <vector>

namespace {

using std::chrono::milliseconds;

struct HangCase
{
  double step_s;
  int log_interval;
};

struct HangResult
{
  double delay_s = -1;  // from the stopping rank's last line to the report
  double threshold_s = 0;
  int false_reports = 0;  // looks at the advancing phase that reported a stall
  std::vector<int> silent;
};

std::string bench_line(int rank, long iteration, double step_ms)
{
  return fmt::format("[rank{}]: [2026-08-22 15:22:22.123456] iteration {:8d}/{:8d} | consumed samples: {:12d} | "
                     "elapsed time per iteration (ms): {:.1f} | lm loss: 2.0 |",
                     rank, iteration, 1000000, iteration * 256, step_ms);
}

HangResult run_hang_case(const HangCase& c, std::uint64_t seed)
{
  constexpr int ranks = 8;
  constexpr int lines_before = 60;
  const milliseconds read_every{5000};
  lg::watch::ManualClock clock;
  lg::watch::HangRule rule;  // the defaults: 3 x median, 300 s floor
  lg::watch::ProgressTracker tracker(clock, rule);
  // When each line is written (ms since start), per rank.
  struct Pending { double at_ms; lg::watch::LogLine line; };
  std::vector<Pending> pending;
  double t = 0;
  std::uint64_t state = seed;
  const auto jitter = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return 0.8 + 0.4 * static_cast<double>(state >> 11) / static_cast<double>(1ULL << 53);
  };
  double last_line_ms = 0;
  for (int n = 1; n <= lines_before + 1; ++n) {
    const double interval_ms = c.step_s * 1000.0 * c.log_interval * jitter();
    t += interval_ms;
    for (int r = 0; r < ranks; ++r) {
      if (n == lines_before + 1 && r == 5) {
        continue;  // rank 5 stops one line before the others
      }
      pending.push_back({t, {"train.log", n, bench_line(r, n * c.log_interval, interval_ms / c.log_interval)}});
    }
    if (n == lines_before) {
      last_line_ms = t;
    }
  }
  HangResult result;
  std::size_t next = 0;
  const auto start = clock.now();
  for (int look = 0; look < 100000; ++look) {
    clock.advance(read_every);
    const double now_ms = static_cast<double>(std::chrono::duration_cast<milliseconds>(clock.now() - start).count());
    for (; next < pending.size() && pending[next].at_ms <= now_ms; ++next) {
      tracker.observe(pending[next].line);
    }
    const auto stall = tracker.stall();
    if (next < pending.size()) {
      result.false_reports += stall ? 1 : 0;
      continue;
    }
    if (stall) {
      result.delay_s = (now_ms - last_line_ms) / 1000.0;
      result.threshold_s = std::chrono::duration<double>(stall->threshold).count();
      result.silent = stall->silent_ranks;
      break;
    }
  }
  return result;
}

} // namespace

int main()
{
  fmt::print("hang detection delay (default rule: max(3 x median gap, 300 s); reads every 5 s; 8 ranks, "
             "rank 5 stops first)\n");
  fmt::print("{:>8} {:>9} {:>12} {:>12} {:>10} {:>14}  {}\n", "step_s", "interval", "line gap s", "threshold s",
             "delay s", "false reports", "silent ranks");
  int total_false = 0;
  for (const double step : {0.5, 2.0, 10.0, 60.0}) {
    for (const int interval : {1, 10, 100}) {
      const HangResult r = run_hang_case({step, interval}, 42);
      total_false += r.false_reports;
      fmt::print("{:>8g} {:>9} {:>12g} {:>12.0f} {:>10.0f} {:>14}  {}\n", step, interval, step * interval,
                 r.threshold_s, r.delay_s, r.false_reports, fmt::join(r.silent, ","));
    }
  }
  fmt::print("false reports while iterations advanced: {}\n", total_false);
  return total_false == 0 ? 0 : 1;
}
