#include "diagnose/scan.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <thread>
#include <utility>

namespace lg::diagnose {

namespace {

constexpr std::size_t k_line_block = 4096;  // below this, go line by line

struct Block
{
  std::size_t file = 0;
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t newlines = 0;  // in [begin, end), counted by the worker
  std::vector<Hit> hits;     // line numbers relative to the block until merged
};

std::size_t count_newlines(std::string_view text)
{
  std::size_t count = 0;
  const char* at = text.data();
  const char* const end = at + text.size();
  while (at < end) {
    const void* found = std::memchr(at, '\n', static_cast<std::size_t>(end - at));
    if (found == nullptr) {
      break;
    }
    ++count;
    at = static_cast<const char*>(found) + 1;
  }
  return count;
}

// Return the offset just past the newline at or after `at` (or the end).
std::size_t next_line_start(std::string_view text, std::size_t at)
{
  if (at >= text.size()) {
    return text.size();
  }
  const auto newline = text.find('\n', at);
  return newline == std::string_view::npos ? text.size() : newline + 1;
}

std::vector<Block> split(const std::vector<LogFile>& logs, std::size_t block_bytes)
{
  std::vector<Block> blocks;
  for (std::size_t file = 0; file < logs.size(); ++file) {
    const std::string_view text = logs[file].text;
    for (std::size_t begin = 0; begin < text.size();) {
      const std::size_t end = next_line_start(text, begin + block_bytes);
      blocks.push_back({file, begin, end, 0, {}});
      begin = end;
    }
  }
  return blocks;
}

class Worker
{
public:
  Worker(const std::vector<LogFile>& logs, const Matcher& matcher, const ScanOptions& options)
    : m_logs(logs),
      m_matcher(matcher),
      m_options(options)
  {
  }

  void run(Block& block)
  {
    const std::string_view text = m_logs[block.file].text;
    const std::string_view body = text.substr(block.begin, block.end - block.begin);
    block.newlines = count_newlines(body);
    m_kept.clear();
    if (m_matcher.may_match(body)) {
      collect(block, text, block.begin, block.end);
      number_lines(block, text);
    }
  }

private:
  // Find the hits in [begin, end) of `text`, halving while the set still
  // matches, so a rare hit costs a few re-reads of its neighbourhood only.
  void collect(Block& block, std::string_view text, std::size_t begin, std::size_t end)
  {
    if (end - begin <= k_line_block) {
      scan_lines(block, text, begin, end);
      return;
    }
    const std::size_t middle = next_line_start(text, begin + (end - begin) / 2);
    if (middle >= end) {
      scan_lines(block, text, begin, end);
      return;
    }
    for (const auto& [from, to] : {std::pair{begin, middle}, std::pair{middle, end}}) {
      if (m_matcher.may_match(text.substr(from, to - from))) {
        collect(block, text, from, to);
      }
    }
  }

  void scan_lines(Block& block, std::string_view text, std::size_t begin, std::size_t end)
  {
    for (std::size_t at = begin; at < end;) {
      const std::size_t next = next_line_start(text, at);
      std::string_view line = text.substr(at, next - at);
      while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) {
        line.remove_suffix(1);
      }
      m_matcher.match_line(line, m_signatures);
      for (const std::size_t sig : m_signatures) {
        if (m_kept[sig]++ < m_options.hits_per_signature) {
          block.hits.push_back({block.file, sig, 0, at, line});
        }
      }
      at = next;
    }
  }

  // Give each hit its line number within the block (0-based for now).
  static void number_lines(Block& block, std::string_view text)
  {
    std::size_t line = 0;
    std::size_t counted_to = block.begin;
    for (Hit& hit : block.hits) {
      line += count_newlines(text.substr(counted_to, hit.offset - counted_to));
      counted_to = hit.offset;
      hit.line = line;
    }
  }

  const std::vector<LogFile>& m_logs;
  const Matcher& m_matcher;
  const ScanOptions& m_options;
  std::vector<std::size_t> m_signatures;
  std::map<std::size_t, std::size_t> m_kept;  // per signature, in this block
};

void run_workers(std::vector<Block>& blocks, const std::vector<LogFile>& logs,
                 const Matcher& matcher, const ScanOptions& options)
{
  unsigned threads = options.threads != 0 ? options.threads : std::thread::hardware_concurrency();
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(blocks.size())));
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    Worker worker(logs, matcher, options);
    for (std::size_t i = next++; i < blocks.size(); i = next++) {
      worker.run(blocks[i]);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) {
    pool.emplace_back(work);
  }
  work();
  for (auto& thread : pool) {
    thread.join();
  }
}

} // namespace

std::vector<Hit> scan_logs(const std::vector<LogFile>& logs, const Matcher& matcher,
                           const ScanOptions& options)
{
  std::vector<Block> blocks = split(logs, std::max<std::size_t>(options.block_bytes, k_line_block));
  run_workers(blocks, logs, matcher, options);
  std::vector<Hit> hits;
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> kept;  // (file, signature)
  std::size_t file = 0;
  std::size_t lines_before = 0;
  for (Block& block : blocks) {
    if (block.file != file) {
      file = block.file;
      lines_before = 0;
    }
    for (Hit& hit : block.hits) {
      hit.line += lines_before + 1;
      if (kept[{hit.file, hit.signature}]++ < options.hits_per_signature) {
        hits.push_back(hit);
      }
    }
    lines_before += block.newlines;
  }
  return hits;
}

} // namespace lg::diagnose
