#include "watch/progress.hpp"

#include "diagnose/origin.hpp"
#include "diagnose/timestamp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace lg::watch {

namespace {

using std::chrono::milliseconds;

constexpr std::size_t k_max_gaps = 1024;

bool is_digit(char c)
{
  return c >= '0' && c <= '9';
}

// Digits at `at` (after spaces): the number, and `at` moved past it.
std::optional<long> progress_number_at(std::string_view line, std::size_t& at)
{
  while (at < line.size() && line[at] == ' ') {
    ++at;
  }
  const std::size_t start = at;
  long value = 0;
  while (at < line.size() && is_digit(line[at]) && at - start < 15) {
    value = value * 10 + (line[at] - '0');
    ++at;
  }
  if (at == start) {
    return std::nullopt;
  }
  return value;
}

// "N/M" right after `at`, spaces allowed around the numbers.
std::optional<std::pair<long, long>> progress_fraction_at(std::string_view line, std::size_t at, std::size_t& end)
{
  const auto done = progress_number_at(line, at);
  if (!done || at >= line.size() || line[at] != '/') {
    return std::nullopt;
  }
  ++at;
  const auto total = progress_number_at(line, at);
  if (!total) {
    return std::nullopt;
  }
  end = at;
  return std::make_pair(*done, *total);
}

// The decimal number after `label` in `line`.
std::optional<double> progress_value_after(std::string_view line, std::string_view label)
{
  const std::size_t at = line.find(label);
  if (at == std::string_view::npos) {
    return std::nullopt;
  }
  const std::string number(line.substr(at + label.size(), 32));
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (end == number.c_str() || !(value >= 0) || value > 1e7) {
    return std::nullopt;
  }
  return value;
}

bool is_busy_line(std::string_view line)
{
  // Megatron-LM training.py evaluate(): print_rank_0(f'Evaluating iter {iteration}/{eval_iters}');
  // checkpointing.py save_checkpoint(): "saving checkpoint at iteration {iteration:7d} to …";
  // NeMo ProgressPrinter: "Validation: iteration N/M", "Testing: iteration N/M".
  for (const std::string_view mark : {"Evaluating iter ", "saving checkpoint at iteration", "Validation: iteration ",
                                      "Testing: iteration "}) {
    if (line.find(mark) != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

} // namespace

std::optional<ProgressMark> parse_progress_line(std::string_view line)
{
  if (line.find("iter") == std::string_view::npos) {
    return std::nullopt;
  }
  if (is_busy_line(line)) {
    return ProgressMark{};
  }
  constexpr std::string_view word = "iteration";
  for (std::size_t at = line.find(word); at != std::string_view::npos; at = line.find(word, at + word.size())) {
    std::size_t end = 0;
    const auto fraction = progress_fraction_at(line, at + word.size(), end);
    if (!fraction) {
      continue;
    }
    std::size_t after = end;
    while (after < line.size() && line[after] == ' ') {
      ++after;
    }
    // Megatron / Bridge: " iteration {:8d}/{:8d} |"; NeMo: "Training epoch E, iteration N/M".
    const bool megatron = after < line.size() && line[after] == '|';
    const std::string_view before = line.substr(0, at);
    const std::size_t epoch = before.rfind("Training epoch ");
    const bool nemo = epoch != std::string_view::npos && before.substr(epoch).find('|') == std::string_view::npos;
    if (!megatron && !nemo) {
      continue;
    }
    ProgressMark mark;
    mark.iteration_line = true;
    mark.iteration = fraction->first;
    mark.total = fraction->second;
    if (const auto ms = progress_value_after(line, "elapsed time per iteration (ms):")) {
      mark.step_seconds = *ms / 1000.0;
    } else if (const auto s = progress_value_after(line, "train_step_timing in s:")) {
      mark.step_seconds = *s;
    }
    return mark;
  }
  return std::nullopt;
}

std::string describe_stall(const Stall& stall)
{
  const auto seconds = [](milliseconds d) { return std::chrono::duration<double>(d).count(); };
  std::string text = fmt::format("no new iteration for {:.0f} s (threshold {:.0f} s", seconds(stall.silent_for),
                                 seconds(stall.threshold));
  text += stall.median_gap.count() > 0
            ? fmt::format(" = max({:g} x the median {:.1f} s between iteration lines, floor {:.0f} s))",
                          stall.rule.factor, seconds(stall.median_gap), seconds(stall.rule.floor))
            : std::string(", the floor: no gap between iteration lines seen yet)");
  text += fmt::format("; last iteration {}", stall.last_iteration);
  if (stall.silent_ranks.empty()) {
    return text + "; the log names no ranks";
  }
  constexpr std::size_t shown = 16;
  std::vector<std::string> ranks;
  for (std::size_t i = 0; i < stall.silent_ranks.size() && i < shown; ++i) {
    const int rank = stall.silent_ranks[i];
    const auto last = stall.last_by_rank.find(rank);
    ranks.push_back(last != stall.last_by_rank.end() && last->second != stall.last_iteration
                      ? fmt::format("{} (at {})", rank, last->second)
                      : fmt::format("{}", rank));
  }
  text += fmt::format("; silent rank{}: {}", stall.silent_ranks.size() == 1 ? "" : "s", fmt::join(ranks, ", "));
  if (stall.silent_ranks.size() > shown) {
    text += fmt::format(", … ({} in all)", stall.silent_ranks.size());
  }
  if (stall.silent_ranks.size() < stall.last_by_rank.size()) {
    text += fmt::format(" of {} ranks printing iterations", stall.last_by_rank.size());
  }
  return text;
}

ProgressTracker::ProgressTracker(const Clock& clock, HangRule rule)
  : m_clock(clock),
    m_rule(rule)
{
}

void ProgressTracker::observe(const LogLine& line)
{
  const auto mark = parse_progress_line(line.text);
  if (!mark) {
    return;
  }
  const auto now = m_clock.now();
  if (!mark->iteration_line) {
    for (auto& [key, stream] : m_streams) {
      stream.advanced = now;
    }
    return;
  }
  std::optional<int> rank = diagnose::origin_of_line(line.text).rank;
  if (!rank) {
    rank = diagnose::rank_from_file_name(line.file);
  }
  const Key key = rank ? Key{*rank, ""} : Key{-1, line.file};
  Stream& stream = m_streams[key];
  std::optional<double> stamp;
  if (const auto found = diagnose::find_timestamp(line.text)) {
    stamp = found->seconds;
  }
  if (stream.has_iteration && mark->iteration == stream.iteration) {
    return;  // the same iteration again (another copy of the line): no progress
  }
  if (stream.has_iteration && mark->iteration > stream.iteration) {
    const auto steps = static_cast<double>(mark->iteration - stream.iteration);
    std::optional<double> gap;
    if (mark->step_seconds) {
      gap = *mark->step_seconds * steps;
    } else if (stamp && stream.stamp_seconds) {
      double seconds = *stamp - *stream.stamp_seconds;
      if (seconds < 0) {
        seconds += 86400;  // past midnight
      }
      gap = seconds;
    } else if (now > stream.advanced) {
      // Lines read in one go say nothing about their gap; across reads the
      // watcher's clock overestimates it, which only delays the verdict.
      gap = std::chrono::duration<double>(now - stream.advanced).count();
    }
    if (gap) {
      m_gaps.push_back(*gap);
      if (m_gaps.size() > k_max_gaps) {
        m_gaps.pop_front();
      }
    }
  }
  if (!stream.has_iteration && mark->step_seconds) {
    m_first_gap_hint = std::max(m_first_gap_hint, *mark->step_seconds * static_cast<double>(mark->iteration));
  }
  // A lower iteration than before: the trainer restarted (from a
  // checkpoint); it still moved.
  stream.has_iteration = true;
  stream.iteration = mark->iteration;
  stream.total = mark->total;
  stream.stamp_seconds = stamp;
  stream.advanced = now;
  stream.line = line;
}

milliseconds ProgressTracker::median_gap() const
{
  if (m_gaps.empty()) {
    return milliseconds(static_cast<long long>(m_first_gap_hint * 1000.0));
  }
  std::vector<double> sorted(m_gaps.begin(), m_gaps.end());
  const auto middle = sorted.begin() + static_cast<long>(sorted.size() / 2);
  std::nth_element(sorted.begin(), middle, sorted.end());
  double median = *middle;
  if (sorted.size() % 2 == 0) {
    median = (median + *std::max_element(sorted.begin(), middle)) / 2;
  }
  return milliseconds(static_cast<long long>(median * 1000.0));
}

milliseconds ProgressTracker::threshold() const
{
  const auto scaled = milliseconds(static_cast<long long>(static_cast<double>(median_gap().count()) * m_rule.factor));
  return std::max(scaled, m_rule.floor);
}

std::optional<Stall> ProgressTracker::stall() const
{
  const auto now = m_clock.now();
  Stall found;
  found.threshold = threshold();
  found.median_gap = median_gap();
  found.rule = m_rule;
  long silent_iteration = -1;
  for (const auto& [key, stream] : m_streams) {
    if (!stream.has_iteration) {
      continue;
    }
    found.last_iteration = std::max(found.last_iteration, stream.iteration);
    if (key.first >= 0) {
      found.last_by_rank[key.first] = stream.iteration;
    }
    const bool finishing = stream.total > 0 && stream.iteration >= stream.total;
    const auto silence = std::chrono::duration_cast<milliseconds>(now - stream.advanced);
    if (finishing || silence < found.threshold) {
      continue;
    }
    if (key.first >= 0) {
      found.silent_ranks.push_back(key.first);
    }
    if (silent_iteration < 0 || silence < found.silent_for) {
      found.silent_for = silence;
    }
    if (stream.iteration > silent_iteration) {
      silent_iteration = stream.iteration;
      found.last_line = stream.line;
    }
  }
  if (silent_iteration < 0) {
    return std::nullopt;
  }
  return found;
}

} // namespace lg::watch
