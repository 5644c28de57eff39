// Finding signature hits in logs, streaming: each log is read in blocks of
// a few MiB through a fixed pool of buffers (memory does not grow with the
// log), blocks are scanned in parallel, and in each block the literal
// prefilter picks the lines the regular expressions see (patterns it cannot
// cover are run over the whole block by their own DFA). Linear time, no
// backtracking.
#pragma once

#include "diagnose/matcher.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace lg::diagnose {

// One log in memory: a display name ("logs/rank3.out") and its text.
struct LogFile
{
  std::string name;
  std::string_view text;
};

// One log as a stream: `read` fills up to `size` bytes and returns how many,
// 0 at the end (and throws what it throws).
struct LogStream
{
  std::string name;
  std::function<std::size_t(char* buffer, std::size_t size)> read;
};

struct Hit
{
  std::size_t file = 0;       // index into the logs
  std::size_t signature = 0;  // index into the catalogue's signatures
  std::size_t line = 0;       // 1-based
  std::size_t offset = 0;     // byte offset of the line in the file's text
  std::string text;           // the line, without its newline (at most k_max_hit_line bytes)
  // The lines around the hit: for the first hit of each signature in each
  // file up to 32 lines (4 KiB) above and 8 lines (8 KiB) below, for the
  // others up to 8 lines (2 KiB) above; the line itself in between.
  std::string context;
  std::size_t context_offset = 0;  // where the line starts in `context`
};

inline constexpr std::size_t k_max_hit_line = 16u << 10;

struct ScanOptions
{
  unsigned threads = 0;                  // 0: one per hardware thread
  std::size_t block_bytes = 2u << 20;    // unit of reading and of parallel work
  std::size_t hits_per_signature = 16;   // first N kept per file and signature
  // Lines holding `head_marker` in the first `head_bytes` of each file are
  // kept whole (at most `head_keep_bytes` over all files): NCCL's init lines,
  // which name each rank's host (origin.hpp, hosts_in_text).
  std::string head_marker = "NCCL";
  std::size_t head_bytes = 4u << 20;
  std::size_t head_keep_bytes = 8u << 20;
};

struct ScanResult
{
  std::vector<std::string> names;  // per file
  std::vector<std::size_t> bytes;  // per file: text bytes read (after decompression)
  std::vector<std::size_t> lines;  // per file: line ends read
  std::vector<std::string> head_lines;  // per file: the head_marker lines of its head, '\n'-separated
  std::vector<Hit> hits;           // ordered by file then line
  std::size_t hits_per_signature = 0;  // the cap the scan applied (ScanOptions)
};

// Scan `logs` with `matcher`: for each file and signature only the first
// `options.hits_per_signature` hits.
ScanResult scan_streams(std::vector<LogStream> logs, const Matcher& matcher, const ScanOptions& options = {});

// The same for logs in memory.
ScanResult scan_logs(const std::vector<LogFile>& logs, const Matcher& matcher, const ScanOptions& options = {});

} // namespace lg::diagnose
