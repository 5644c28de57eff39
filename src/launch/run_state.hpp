// A run's state, folded from its journal records. The journal is the only
// truth: `watch` resumes from this, `runs` prints it, and `submit` uses it to
// decide whether an attempt still needs an sbatch call.
#pragma once

#include "launch/journal.hpp"
#include "watch/observed_state.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lg::launch {

// How a run ended (run_finished's "outcome"), spelled once by to_string.
enum class RunResult { succeeded, failed, gave_up };
// How an attempt ended (attempt_finished's "outcome").
enum class AttemptResult { completed, failed, vanished, cancelled, submit_failed };

// "succeeded", "failed", "gave_up" / "completed", "failed", "vanished", ….
std::string to_string(RunResult result);
std::string to_string(AttemptResult result);
// "" for nullopt.
std::string to_string(const std::optional<RunResult>& result);
std::string to_string(const std::optional<AttemptResult>& result);
// The inverse of to_string, for journal records; nullopt for any other word.
std::optional<RunResult> parse_run_result(std::string_view text);
std::optional<AttemptResult> parse_attempt_result(std::string_view text);

struct AttemptState
{
  int number = 0;
  std::string tag;     // "lg-<run id>-a<number>", put in the job's comment
  std::string fix;     // fix id applied for this attempt ("" for the first)
  std::string reason;  // why this attempt exists
  bool submit_started = false;  // sbatch was (maybe) called
  std::optional<std::string> job_id;
  watch::ObservedState last_state;  // what the watcher last knew of the job
  std::string category;    // diagnosis category once known
  std::string diagnosis_fix;
  std::string suggested_change;  // diagnosis's fix id
  double max_allocated_bytes = 0;  // highest live memory report seen
  std::vector<std::string> exclude;  // nodes this attempt was kept off (sbatch --exclude)
  std::string host;  // the node the diagnosis names
  bool finished = false;
  std::optional<AttemptResult> outcome;  // once finished (nullopt: a word this binary does not know)
};


struct RunState
{
  std::string run_id;
  std::string name;
  int max_attempts = 1;
  bool retry_infra = false;
  std::vector<AttemptState> attempts;
  bool finished = false;
  std::optional<RunResult> outcome;  // once finished
  std::string outcome_reason;
  int damaged_records = 0;

  // The attempt that is not finished, if any.
  AttemptState* current();
};

// Fold `records` (in order) into a RunState. Unknown record types are
// ignored, so older binaries can read newer journals.
RunState fold(const std::string& run_id, const std::vector<Record>& records);

// The tag of attempt `number` of `run_id`.
std::string attempt_tag(const std::string& run_id, int number);

} // namespace lg::launch
