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
  // For the first hit of each signature in each file: up to 32 lines above,
  // the line, and up to 8 lines (8 KiB) below; empty for the others.
  std::string context;
  std::size_t context_offset = 0;  // where the line starts in `context`
};

inline constexpr std::size_t k_max_hit_line = 16u << 10;

struct ScanOptions
{
  unsigned threads = 0;                  // 0: one per hardware thread
  std::size_t block_bytes = 2u << 20;    // unit of reading and of parallel work
  std::size_t hits_per_signature = 16;   // first N kept per file and signature
};

struct ScanResult
{
  std::vector<std::string> names;  // per file
  std::vector<std::size_t> bytes;  // per file: text bytes read (after decompression)
  std::vector<std::size_t> lines;  // per file
  std::vector<Hit> hits;           // ordered by file then line
};

// Scan `logs` with `matcher`: for each file and signature only the first
// `options.hits_per_signature` hits.
ScanResult scan_streams(std::vector<LogStream> logs, const Matcher& matcher, const ScanOptions& options = {});

// The same for logs in memory.
ScanResult scan_logs(const std::vector<LogFile>& logs, const Matcher& matcher, const ScanOptions& options = {});

} // namespace lg::diagnose
