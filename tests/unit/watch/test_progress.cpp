// Hang detection's pure half (watch/progress.hpp): which lines are progress,
// and when a rank counts as silent, on a ManualClock. The line formats are
// upstream's: Megatron-LM megatron/training/training.py training_log()
// (" iteration {:8d}/{:8d} |", " elapsed time per iteration (ms): {:.1f} |"),
// evaluate() ("Evaluating iter {}/{}"), checkpointing.py ("saving checkpoint at
// iteration {:7d} to …"); NeMo nemo/lightning/pytorch/callbacks/progress_printer.py
// ("Training epoch 0, iteration 10/249 | … | train_step_timing in s: 2.505").
#include "support/progress_lines.hpp"
#include "watch/progress.hpp"

#include <doctest/doctest.h>

#include <fmt/format.h>

using namespace std::chrono_literals;
using lg::testing::megatron_iteration_line;
using lg::watch::LogLine;
using lg::watch::ProgressTracker;

namespace {

LogLine log_line(std::string text, const std::string& file = "logs/job-7.out")
{
  return LogLine{file, 1, std::move(text)};
}

lg::watch::HangRule rule(std::chrono::milliseconds floor)
{
  lg::watch::HangRule r;
  r.floor = floor;
  return r;
}

} // namespace

TEST_SUITE_BEGIN("watch");

TEST_CASE("progress line: Megatron's and NeMo's iteration lines, with the trainer's own step time")
{
  const auto megatron = lg::watch::parse_progress_line(megatron_iteration_line(120, 812.4));
  REQUIRE(megatron);
  CHECK(megatron->iteration_line);
  CHECK(megatron->iteration == 120);
  CHECK(megatron->total == 1000);
  REQUIRE(megatron->step_seconds);
  CHECK(*megatron->step_seconds == doctest::Approx(0.8124));

  const auto nemo = lg::watch::parse_progress_line(
    "Training epoch 0, iteration 10/249 | lr: 1.961e-06 | global_batch_size: 8 | global_step: 10 | "
    "reduced_train_loss: 1.315 | train_step_timing in s: 2.505");
  REQUIRE(nemo);
  CHECK(nemo->iteration == 10);
  CHECK(nemo->total == 249);
  REQUIRE(nemo->step_seconds);
  CHECK(*nemo->step_seconds == doctest::Approx(2.505));
}

TEST_CASE("progress line: evaluation and checkpoint lines are busy, other lines with 'iteration' are not progress")
{
  const auto evaluating = lg::watch::parse_progress_line("Evaluating iter 3/10");
  REQUIRE(evaluating);
  CHECK_FALSE(evaluating->iteration_line);
  const auto saving = lg::watch::parse_progress_line(
    "[2026-08-22 15:22:22.123456] saving checkpoint at iteration     500 to /ckpt in torch_dist format");
  REQUIRE(saving);
  CHECK_FALSE(saving->iteration_line);
  // Megatron's evaluate_and_print_results(): no "N/M".
  CHECK_FALSE(lg::watch::parse_progress_line(" validation loss at iteration 500 on validation set | lm loss value: 2.1 |"));
  // A fraction with no trainer's frame around it.
  CHECK_FALSE(lg::watch::parse_progress_line("preprocess: iteration 3/10 done"));
  CHECK_FALSE(lg::watch::parse_progress_line("elapsed time per iteration (ms): 812.4"));
}

TEST_CASE("progress: the floor rules until lines come, then 3 x the median gap, and a stall names its silence")
{
  lg::watch::ManualClock clock;
  ProgressTracker tracker(clock, rule(10s));
  CHECK(tracker.threshold() == 10s);
  CHECK_FALSE(tracker.stall());  // no iteration yet: start-up is not judged
  // Lines every 10 iterations of 2 s each: a 20 s gap between lines.
  for (long iteration = 10; iteration <= 50; iteration += 10) {
    tracker.observe(log_line(megatron_iteration_line(iteration, 2000.0)));
    clock.advance(20s);
  }
  CHECK(tracker.median_gap() == 20s);
  CHECK(tracker.threshold() == 60s);  // 3 x 20 s beats the 10 s floor
  // 20 s passed since iteration 50: fine until 60 s.
  clock.advance(39s);
  CHECK_FALSE(tracker.stall());
  clock.advance(1s);
  const auto stall = tracker.stall();
  REQUIRE(stall);
  CHECK(stall->last_iteration == 50);
  CHECK(stall->silent_for == 60s);
  CHECK(stall->silent_ranks.empty());  // the log names no rank
  CHECK(stall->last_line.text.find("iteration       50/") != std::string::npos);
  // The next iteration ends it.
  tracker.observe(log_line(megatron_iteration_line(60, 2000.0)));
  CHECK_FALSE(tracker.stall());
}

TEST_CASE("progress: before a second line, the first line's step time x its iteration stands in for the gap")
{
  // A log interval of 100 iterations of 10 s: 1000 s between lines, over the floor.
  lg::watch::ManualClock clock;
  ProgressTracker tracker(clock, rule(300s));
  tracker.observe(log_line(megatron_iteration_line(100, 10000.0)));
  CHECK(tracker.median_gap() == 1000s);
  CHECK(tracker.threshold() == 3000s);
  clock.advance(900s);
  CHECK_FALSE(tracker.stall());  // the floor alone would have called this a hang
}

TEST_CASE("progress: per rank where the log names ranks; only the rank that stopped is silent")
{
  lg::watch::ManualClock clock;
  ProgressTracker tracker(clock, rule(30s));
  for (long iteration = 1; iteration <= 3; ++iteration) {
    tracker.observe(log_line("[rank0]:" + megatron_iteration_line(iteration, 1000.0)));
    tracker.observe(log_line("[rank1]:" + megatron_iteration_line(iteration, 1000.0)));
    clock.advance(1s);
  }
  // Rank 1 stops at 3; rank 0 goes on (its lines every second).
  for (long iteration = 4; iteration <= 40; ++iteration) {
    tracker.observe(log_line("[rank0]:" + megatron_iteration_line(iteration, 1000.0)));
    clock.advance(1s);
  }
  const auto stall = tracker.stall();
  REQUIRE(stall);
  CHECK(stall->silent_ranks == std::vector<int>{1});
  CHECK(stall->last_by_rank == std::map<int, long>{{0, 40}, {1, 3}});
  CHECK(stall->last_iteration == 40);
  CHECK(stall->threshold == 30s);  // 3 x 1 s is under the floor
}

TEST_CASE("progress: a per-rank file names the rank; a busy line keeps every rank alive")
{
  lg::watch::ManualClock clock;
  ProgressTracker tracker(clock, rule(30s));
  tracker.observe(log_line(megatron_iteration_line(1, 1000.0), "logs/rank-3.out"));
  clock.advance(25s);
  tracker.observe(log_line("saving checkpoint at iteration       1 to /ckpt", "logs/rank-0.out"));
  clock.advance(25s);
  CHECK_FALSE(tracker.stall());  // 25 s since the checkpoint line
  clock.advance(5s);
  const auto stall = tracker.stall();
  REQUIRE(stall);
  CHECK(stall->silent_ranks == std::vector<int>{3});
}

TEST_CASE("progress: timestamps give the gap when the line has no step time; the last iteration is finishing")
{
  lg::watch::ManualClock clock;
  ProgressTracker tracker(clock, rule(1s));
  // Read together (no clock movement): only the timestamps, 4 s apart, tell the gap.
  tracker.observe(log_line("2026-08-22 15:22:10 Training epoch 0, iteration 1/3 | lr: 1e-05"));
  tracker.observe(log_line("2026-08-22 15:22:14 Training epoch 0, iteration 2/3 | lr: 1e-05"));
  CHECK(tracker.median_gap() == 4s);
  CHECK(tracker.threshold() == 12s);
  tracker.observe(log_line("2026-08-22 15:22:18 Training epoch 0, iteration 3/3 | lr: 1e-05"));
  clock.advance(std::chrono::hours(1));
  CHECK_FALSE(tracker.stall());  // 3/3: saving and shutting down, not hung
}

TEST_SUITE_END();
