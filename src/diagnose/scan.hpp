// Finding signature hits in log text: each byte is read by the set's DFA a
// bounded number of times (block test, then bisection down to a few KiB, then
// per line), blocks in parallel. Linear in the input; no backtracking.
#pragma once

#include "diagnose/matcher.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace lg::diagnose {

// One log: a display name ("logs/rank3.out") and its text. The text is not
// copied: it must outlive every Hit and Diagnosis made from it.
struct LogFile
{
  std::string name;
  std::string_view text;
};

struct Hit
{
  std::size_t file = 0;       // index into the logs
  std::size_t signature = 0;  // index into the catalogue's signatures
  std::size_t line = 0;       // 1-based
  std::size_t offset = 0;     // byte offset of the line in the file's text
  std::string_view text;      // the line, without its newline
};

struct ScanOptions
{
  unsigned threads = 0;               // 0: one per hardware thread
  std::size_t block_bytes = 1 << 20;  // unit of parallel work
  std::size_t hits_per_signature = 16;  // first N kept per file and signature
};

// Return the hits of `matcher` in `logs`, ordered by file then line; for each
// file and signature only the first `options.hits_per_signature`.
std::vector<Hit> scan_logs(const std::vector<LogFile>& logs, const Matcher& matcher,
                           const ScanOptions& options = {});

} // namespace lg::diagnose
