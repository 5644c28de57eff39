// diagnose: log text in, failure category + evidence + fix out. Pure: the
// caller opens the logs (scan_streams reads them through the caller's
// functions) and the catalogue; nothing here touches the disk.
//
// Root-cause ordering: every signature has a causal rank; the lowest rank
// seen wins, and among hits of that rank the first in time (line order
// within a file, timestamps across files when every candidate has one, else
// file order). So an NCCL watchdog timeout (rank 55) never beats an OOM on
// another rank (30), and Slurm's "CANCELLED AT ..." without "DUE TO" (95) is
// never a cause when anything else is there. The deciding line's rank and
// host are the first failing rank and its host (diagnose/origin.hpp); every
// other failure line is listed as a consequence, with its own rank and host.
// A failure line without a known cause (an exception, an exit status, a
// SIGTERM) makes the diagnosis "unknown"; "none" means no failure line at all.
#pragma once

#include "diagnose/catalogue.hpp"
#include "diagnose/matcher.hpp"
#include "diagnose/oom_message.hpp"
#include "diagnose/scan.hpp"

#include <optional>
#include <string>
#include <vector>

namespace lg::diagnose {

// What is known besides the logs; every field is optional.
struct Context
{
  // Slurm's final job state: "OUT_OF_MEMORY", "TIMEOUT", "NODE_FAIL",
  // "PREEMPTED", "FAILED", "CANCELLED", "COMPLETED", … (empty: unknown).
  std::string slurm_state;
  // Whether the job ran with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
  // (from the job file); the logs can also say so.
  std::optional<bool> expandable_segments_set;
};

struct Evidence
{
  std::string file;
  std::size_t line = 0;  // 1-based; 0 for evidence that is not a log line
  std::string text;
};

// One failure line other than the deciding one (another rank's timeout, a
// SIGTERM sent by the launcher, the Slurm teardown).
struct Event
{
  std::string category;
  std::optional<int> rank;
  std::string host;
  std::string file;
  std::size_t line = 0;
  std::string text;
};

struct Diagnosis
{
  std::string category = "none";  // a category of category.hpp, "unknown" or "none"
  double confidence = 0.0;        // 0..1
  std::vector<Evidence> evidence;  // the deciding line first
  std::string fix;                 // a concrete job change
  bool retryable = false;          // a retry (with suggested_change) can help
  std::string suggested_change;    // a fix id ("expandable_segments") or empty
  std::optional<OomNumbers> oom;   // numbers of the deciding OOM message
  std::string reason;              // why this category, in one or two sentences
  std::string signature;           // id of the deciding signature
  std::vector<std::string> consequences;  // other categories seen, read as consequences
  std::vector<Event> consequence_events;  // the lines behind them, in time order (capped)
  std::optional<int> first_failing_rank;  // the rank of the deciding line, when the log shows it
  std::string host;  // the host of the deciding line (the node to exclude for hardware), or empty
  // NCCL flight-recorder dump files found next to the logs (filled by the
  // caller, which may list directories; watch/flight_recorder_dumps.hpp).
  std::vector<std::string> flight_recorder_dumps;
};

// Return true if `state` is a Slurm state of a job that did not succeed.
bool is_failed_state(std::string_view state);

// Diagnose the hits of a scan (scan_streams) with the `matcher` that made it.
Diagnosis diagnose_scan(const ScanResult& scan, const Matcher& matcher, const Context& context = {});

// Diagnose `logs` with the compiled `matcher`.
Diagnosis diagnose(const std::vector<LogFile>& logs, const Matcher& matcher,
                   const Context& context = {}, const ScanOptions& options = {});

// Same, compiling `catalogue` first (a few milliseconds).
Diagnosis diagnose(const std::vector<LogFile>& logs, const Catalogue& catalogue,
                   const Context& context = {});

} // namespace lg::diagnose
