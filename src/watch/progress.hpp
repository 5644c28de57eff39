// Training progress read from a running job's log lines, for hang detection:
// a job Slurm calls RUNNING whose iteration lines stopped advancing. Pure
// logic on lines and an injected clock; the watch loop feeds it the lines its
// log tail already read (no Slurm command, no extra file read).
//
// Progress lines (the families, not one trainer's bytes):
//   Megatron-LM  megatron/training/training.py training_log():
//     " [2026-08-22 15:22:22.123456] iteration      100/   10000 | consumed samples: … |
//       elapsed time per iteration (ms): 812.4 | …"
//     (the time is the mean over the log interval), printed by the last rank;
//   Megatron Bridge  src/megatron/bridge/training/utils/train_utils.py training_log(): the same
//     " iteration {:8d}/{:8d} |" and " elapsed time per iteration (ms): {:.1f} |";
//   NeMo 2  nemo/lightning/pytorch/callbacks/progress_printer.py ProgressPrinter:
//     "Training epoch 0, iteration 10/249 | … | train_step_timing in s: 2.505"
//     (train_step_timing averaged over the log interval).
// Lines that show the job busy between iterations (Megatron's "Evaluating
// iter 3/10" in evaluate(), "saving checkpoint at iteration" in
// checkpointing.py, NeMo's "Validation: iteration 3/10") keep every rank
// alive without being an iteration.
//
// The rule: a rank (or, where the log names no rank, a file) is silent when
// it printed no new iteration for max(factor × the median gap between
// iteration lines seen so far, floor). The gap between two lines is the
// trainer's own time per iteration × the iterations between them when the
// line says it, else the difference of the lines' timestamps, else the time
// between the watcher seeing them. Before a second line gives a gap, the
// first line's own time per iteration × its iteration number stands in (the
// log interval of a run that started at 0; more, so later, for a resumed
// one), so a long log interval is not taken for a hang while the first gap
// is still unknown. A rank whose last iteration is the last one of training
// (N/N) is finishing, never silent.
#pragma once

#include "watch/clock.hpp"
#include "watch/log_tail.hpp"

#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lg::watch {

// What one progress line says.
struct ProgressMark
{
  bool iteration_line = false;  // false: a busy line (evaluation, checkpoint saving)
  long iteration = 0;
  long total = 0;                      // the run's last iteration (0: not printed)
  std::optional<double> step_seconds;  // the trainer's own time per iteration
};

// Parse one log line; nullopt when it shows no progress.
std::optional<ProgressMark> parse_progress_line(std::string_view line);

// The hang rule's two numbers. The floor's default, 5 minutes, is above a
// checkpoint save or an evaluation pass of most jobs and below the 10-minute
// NCCL watchdog timeout Megatron sets by default (--distributed-timeout-minutes),
// so a hang inside a collective is reported before the watchdog's abort hides it
// as nccl_timeout, and a hang outside one (a dataloader, a file system) is
// reported at all.
struct HangRule
{
  std::chrono::milliseconds floor{std::chrono::minutes(5)};
  double factor = 3.0;
};

// A job whose progress stopped.
struct Stall
{
  long last_iteration = 0;             // the highest iteration any rank printed
  std::vector<int> silent_ranks;       // empty when the log names no ranks
  std::map<int, long> last_by_rank;    // every rank that printed iterations
  std::chrono::milliseconds silent_for{0};   // the shortest silence among the silent ranks
  std::chrono::milliseconds threshold{0};
  std::chrono::milliseconds median_gap{0};   // the first line's hint before two lines; 0 without one
  HangRule rule;                       // what set the threshold
  LogLine last_line;                   // the last iteration line of a silent rank
};

// One line for people: the silence, the threshold and how it was set, the
// last iteration, the silent ranks (each with its last iteration; at most
// 16 named).
std::string describe_stall(const Stall& stall);

class ProgressTracker
{
public:
  ProgressTracker(const Clock& clock, HangRule rule);

  // Read one log line the watch loop tailed.
  void observe(const LogLine& line);

  // The stall now, or nullopt while every rank advances (or none printed an
  // iteration yet: start-up is not judged here).
  std::optional<Stall> stall() const;

  // max(factor × median gap, floor).
  std::chrono::milliseconds threshold() const;

  // The median gap between iteration lines so far (before two, the first
  // line's own hint; 0 without one).
  std::chrono::milliseconds median_gap() const;

private:
  struct Stream
  {
    long iteration = 0;
    long total = 0;
    bool has_iteration = false;
    std::optional<double> stamp_seconds;  // the last iteration line's timestamp, since midnight
    Clock::time_point advanced;           // last new iteration (or busy line)
    LogLine line;
  };
  using Key = std::pair<int, std::string>;  // (rank, "") or (-1, file)

  const Clock& m_clock;
  HangRule m_rule;
  std::map<Key, Stream> m_streams;
  std::deque<double> m_gaps;  // seconds, the most recent k_max_gaps
  double m_first_gap_hint = 0;  // seconds, from first lines' own step times
};

} // namespace lg::watch
