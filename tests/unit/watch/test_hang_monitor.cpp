// The hang report every watch loop shares (watch/hang_monitor.hpp): `submit`,
// `watch RUN_ID` and plain `watch JOB_ID --log FILE` feed it the lines their
// log tail read. Lines are Megatron-LM's training_log() format
// (megatron/training/training.py, tests/unit/support/progress_lines.hpp).
#include "support/default_matcher.hpp"
#include "support/progress_lines.hpp"
#include "watch/hang_monitor.hpp"

#include <doctest/doctest.h>

using namespace std::chrono_literals;

namespace {

const lg::watch::ObservedState k_running = lg::watch::ObservedState::of(lg::slurm::JobState::running);

lg::watch::HangPolicy hang_monitor_policy(bool cancel)
{
  lg::watch::HangPolicy policy;
  policy.rule.floor = 30s;
  policy.grace = 10s;
  policy.cancel = cancel;
  return policy;
}

void feed_iterations(lg::watch::HangMonitor& monitor, lg::watch::ManualClock& clock, long from, long to)
{
  for (long iteration = from; iteration <= to; ++iteration) {
    monitor.observe(
      {"job-7.out", static_cast<int>(iteration), lg::testing::megatron_iteration_line(iteration, 1000.0)});
    clock.advance(1s);
  }
}

// Iterations 1..5 a second apart, then 40 s of silence: over the 30 s floor.
void feed_then_fall_silent(lg::watch::HangMonitor& monitor, lg::watch::ManualClock& clock)
{
  feed_iterations(monitor, clock, 1, 5);
  clock.advance(40s);
}

}  // namespace

TEST_SUITE_BEGIN("watch");

TEST_CASE("hang monitor: reported once while RUNNING, cancel due once after the grace")
{
  lg::watch::ManualClock clock;
  lg::watch::HangMonitor monitor(clock, hang_monitor_policy(true));
  feed_iterations(monitor, clock, 1, 5);
  CHECK_FALSE(monitor.look(k_running).reported);
  clock.advance(40s);
  CHECK_FALSE(
    monitor.look(lg::watch::ObservedState::of(lg::slurm::JobState::completing)).stall);  // only a RUNNING job is judged
  const auto first = monitor.look(k_running);
  CHECK(first.reported);
  CHECK_FALSE(first.cancel_now);
  REQUIRE(first.stall);
  CHECK(first.stall->last_iteration == 5);
  CHECK(lg::watch::describe_hang(*first.stall, "x").rfind("hang_no_progress while Slurm says RUNNING: ", 0) == 0);
  clock.advance(5s);
  CHECK_FALSE(monitor.look(k_running).reported);  // not on every look
  clock.advance(5s);
  CHECK(monitor.look(k_running).cancel_now);
  clock.advance(5s);
  CHECK_FALSE(monitor.look(k_running).cancel_now);  // once
  CHECK(monitor.hang());
}

TEST_CASE(
  "hang monitor: without cancelling (a job launchguard did not submit) a hang is only reported; iterations end it")
{
  lg::watch::ManualClock clock;
  lg::watch::HangMonitor monitor(clock, hang_monitor_policy(false));
  feed_then_fall_silent(monitor, clock);
  CHECK(monitor.look(k_running).reported);
  clock.advance(1h);
  CHECK_FALSE(monitor.look(k_running).cancel_now);
  feed_iterations(monitor, clock, 6, 6);
  const auto again = monitor.look(k_running);
  CHECK(again.resumed);
  CHECK_FALSE(monitor.hang());
}

TEST_CASE("hang monitor: the hang beats a log without a known cause, never a known cause")
{
  lg::watch::ManualClock clock;
  lg::watch::HangMonitor monitor(clock, hang_monitor_policy(false));
  feed_then_fall_silent(monitor, clock);
  const auto stall = monitor.look(k_running).stall;
  REQUIRE(stall);
  const auto& catalogue = lg::testing::default_matcher().catalogue();
  // Slurm's teardown after a cancel (src/slurmd/slurmstepd/req.c
  // "*** JOB %u ON %s CANCELLED AT %s ***") is no cause: the hang is.
  auto teardown = lg::diagnose::diagnose({{"job-7.out", "slurmstepd: error: *** JOB 7 ON node1 CANCELLED AT "
                                                        "2026-08-22T15:40:00 ***\n"}},
                                         lg::testing::default_matcher(), {"CANCELLED", std::nullopt});
  CHECK(lg::watch::apply_hang(teardown, *stall, catalogue));
  CHECK(teardown.category == "hang_no_progress");
  CHECK_FALSE(teardown.fix.empty());
  // PyTorch's watchdog (ProcessGroupNCCL.cpp "Watchdog caught collective
  // operation timeout: WorkNCCL(SeqNum=…") names the cause more precisely.
  auto timeout = lg::diagnose::diagnose(
    {{"job-7.out", "[rank1]:[E822 15:32:00.1 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation "
                   "timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran "
                   "for 600001 milliseconds before timing out.\n"}},
    lg::testing::default_matcher());
  CHECK_FALSE(lg::watch::apply_hang(timeout, *stall, catalogue));
  CHECK(timeout.category == "nccl_timeout");
}

TEST_SUITE_END();
