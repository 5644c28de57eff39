#include "diagnose/scan.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace lg::diagnose {

namespace {

constexpr std::size_t k_line_block = 4096;     // residual DFA: below this, line by line
constexpr std::size_t k_before_bytes = 4096;   // context kept above a block
constexpr std::size_t k_after_bytes = 8192;    // context kept below a block
constexpr std::size_t k_before_lines = 32;
constexpr std::size_t k_after_lines = 8;
constexpr std::size_t k_repeat_before_bytes = 2048;  // later hits of a signature
constexpr std::size_t k_repeat_before_lines = 8;
constexpr std::size_t k_max_buffers = 10;

std::size_t count_newlines(const char* at, const char* end)
{
  std::size_t count = 0;
#ifdef __SSE2__
  // Per byte lane a counter (a match is -1, subtracted) for up to 255
  // vectors, then summed by PSADBW: no population count, which x86-64's
  // baseline does not have (GCC calls a library routine for it).
  const __m128i newline = _mm_set1_epi8('\n');
  const __m128i zero = _mm_setzero_si128();
  __m128i total = zero;
  while (end - at >= 16) {
    __m128i lanes = zero;
    for (int n = 0; n < 255 && end - at >= 16; ++n, at += 16) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
      lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(bytes, newline));
    }
    total = _mm_add_epi64(total, _mm_sad_epu8(lanes, zero));
  }
  count = static_cast<std::size_t>(_mm_cvtsi128_si64(total))
          + static_cast<std::size_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(total, total)));
#endif
  for (; at < end; ++at) {
    count += *at == '\n' ? 1 : 0;
  }
  return count;
}

// A buffer: [0, body_begin) context above, [body_begin, body_end) the text
// this block owns, [body_end, filled) context below (the next block's start).
struct Chunk
{
  std::unique_ptr<char[]> data;
  std::size_t capacity = 0;
  std::size_t body_begin = 0;
  std::size_t body_end = 0;
  std::size_t filled = 0;
  std::size_t offset = 0;  // file offset of data[body_begin]
  struct Result* result = nullptr;
};

struct Result
{
  std::size_t file = 0;
  std::size_t newlines = 0;
  std::vector<Hit> hits;  // line numbers within the block (0-based) until merged
  std::string head_lines;
};

template<typename T>
class Queue
{
public:
  void push(T value)
  {
    {
      std::lock_guard lock(m_mutex);
      m_items.push_back(std::move(value));
    }
    m_ready.notify_one();
  }
  // Return false once closed and empty.
  bool pop(T& out)
  {
    std::unique_lock lock(m_mutex);
    m_ready.wait(lock, [&] { return !m_items.empty() || m_closed; });
    if (m_items.empty()) {
      return false;
    }
    out = std::move(m_items.front());
    m_items.pop_front();
    return true;
  }
  void close()
  {
    {
      std::lock_guard lock(m_mutex);
      m_closed = true;
    }
    m_ready.notify_all();
  }

private:
  std::mutex m_mutex;
  std::condition_variable m_ready;
  std::deque<T> m_items;
  bool m_closed = false;
};

class BlockScanner
{
public:
  BlockScanner(const Matcher& matcher, const ScanOptions& options)
    : m_matcher(matcher),
      m_options(options)
  {
  }

  void run(const Chunk& chunk)
  {
    Result& result = *chunk.result;
    const char* data = chunk.data.get();
    const char* begin = data + chunk.body_begin;
    const char* end = data + chunk.body_end;
    result.newlines = count_newlines(begin, end);
    m_found.clear();
    prefiltered(begin, end);
    if (m_matcher.has_residual()) {
      residual(begin, end);
    }
    std::sort(m_found.begin(), m_found.end());
    m_found.erase(std::unique(m_found.begin(), m_found.end()), m_found.end());
    keep(chunk, result);
    if (chunk.offset < m_options.head_bytes && !m_options.head_marker.empty()) {
      const std::size_t limit = std::min(chunk.body_end - chunk.body_begin, m_options.head_bytes - chunk.offset);
      head_lines(begin, begin + limit, end, result.head_lines);
    }
  }

private:
  struct Found
  {
    std::size_t line_begin;
    std::size_t line_end;
    std::size_t signature;
    auto operator<=>(const Found&) const = default;
  };

  // Append the lines of [begin, limit) that hold the head marker to `out`.
  void head_lines(const char* begin, const char* limit, const char* end, std::string& out) const
  {
    const std::string& marker = m_options.head_marker;
    for (const char* at = begin; at < limit;) {
      const auto* found = static_cast<const char*>(
        ::memmem(at, static_cast<std::size_t>(limit - at), marker.data(), marker.size()));
      if (found == nullptr) {
        return;
      }
      const auto* newline_before = static_cast<const char*>(::memrchr(at, '\n', static_cast<std::size_t>(found - at)));
      const char* line_begin = newline_before == nullptr ? at : newline_before + 1;
      const auto* newline = static_cast<const char*>(std::memchr(found, '\n', static_cast<std::size_t>(end - found)));
      const char* line_end = newline == nullptr ? end : newline;
      out.append(line_begin, std::min<std::size_t>(static_cast<std::size_t>(line_end - line_begin), k_max_hit_line));
      out.push_back('\n');
      at = line_end + 1;
    }
  }

  void match(const char* line_begin, const char* line_end, const char* base)
  {
    std::string_view line(line_begin, static_cast<std::size_t>(line_end - line_begin));
    while (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    m_matcher.match_line(line, m_signatures);
    for (const std::size_t sig : m_signatures) {
      m_found.push_back({static_cast<std::size_t>(line_begin - base), static_cast<std::size_t>(line_end - base), sig});
    }
  }

  void prefiltered(const char* begin, const char* end)
  {
    const Prefilter& prefilter = m_matcher.prefilter();
    for (const char* at = begin; at < end;) {
      const char* atom = prefilter.find(at, end);
      if (atom == end) {
        return;
      }
      const auto* newline_before = static_cast<const char*>(::memrchr(at, '\n', static_cast<std::size_t>(atom - at)));
      const char* line_begin = newline_before == nullptr ? at : newline_before + 1;
      const auto* newline = static_cast<const char*>(std::memchr(atom, '\n', static_cast<std::size_t>(end - atom)));
      const char* line_end = newline == nullptr ? end : newline;
      match(line_begin, line_end, m_base);
      at = line_end + 1;
    }
  }

  // The patterns the prefilter cannot cover: a DFA pass over the block,
  // halving while the set still matches, then line by line.
  void residual(const char* begin, const char* end)
  {
    if (!m_matcher.residual_may_match({begin, static_cast<std::size_t>(end - begin)})) {
      return;
    }
    if (end - begin <= static_cast<std::ptrdiff_t>(k_line_block)) {
      for (const char* at = begin; at < end;) {
        const auto* newline = static_cast<const char*>(std::memchr(at, '\n', static_cast<std::size_t>(end - at)));
        const char* line_end = newline == nullptr ? end : newline;
        match(at, line_end, m_base);
        at = line_end + 1;
      }
      return;
    }
    const char* middle = begin + (end - begin) / 2;
    const auto* newline = static_cast<const char*>(std::memchr(middle, '\n', static_cast<std::size_t>(end - middle)));
    middle = newline == nullptr ? end : newline + 1;
    if (middle >= end) {
      residual_lines(begin, end);
      return;
    }
    residual(begin, middle);
    residual(middle, end);
  }

  void residual_lines(const char* begin, const char* end)
  {
    for (const char* at = begin; at < end;) {
      const auto* newline = static_cast<const char*>(std::memchr(at, '\n', static_cast<std::size_t>(end - at)));
      const char* line_end = newline == nullptr ? end : newline;
      match(at, line_end, m_base);
      at = line_end + 1;
    }
  }

  void keep(const Chunk& chunk, Result& result)
  {
    const char* data = chunk.data.get();
    std::map<std::size_t, std::size_t> kept;  // per signature, in this block
    std::size_t line = 0;
    std::size_t counted_to = chunk.body_begin;
    for (const Found& found : m_found) {
      std::size_t& count = kept[found.signature];
      if (count++ >= m_options.hits_per_signature) {
        continue;
      }
      line += count_newlines(data + counted_to, data + found.line_begin);
      counted_to = found.line_begin;
      Hit hit;
      hit.file = result.file;
      hit.signature = found.signature;
      hit.line = line;
      hit.offset = chunk.offset + (found.line_begin - chunk.body_begin);
      std::string_view text(data + found.line_begin, found.line_end - found.line_begin);
      while (!text.empty() && text.back() == '\r') {
        text.remove_suffix(1);
      }
      hit.text = std::string(text.substr(0, k_max_hit_line));
      add_context(hit, chunk, found, count == 1);
      result.hits.push_back(std::move(hit));
    }
  }

  static void add_context(Hit& hit, const Chunk& chunk, const Found& found, bool first)
  {
    const char* data = chunk.data.get();
    const std::size_t before_lines = first ? k_before_lines : k_repeat_before_lines;
    const std::size_t before_bytes = first ? k_before_bytes : k_repeat_before_bytes;
    std::size_t begin = found.line_begin;
    for (std::size_t i = 0; i < before_lines && begin > 0 && found.line_begin - begin < before_bytes; ++i) {
      const auto* newline = static_cast<const char*>(::memrchr(data, '\n', begin - 1));
      begin = newline == nullptr ? 0 : static_cast<std::size_t>(newline - data) + 1;
    }
    std::size_t end = std::min(found.line_end, found.line_begin + k_max_hit_line);
    const std::size_t after_limit = first ? std::min(chunk.filled, end + k_after_bytes) : end;
    for (std::size_t i = 0; i < k_after_lines && end < after_limit; ++i) {
      const auto* newline = static_cast<const char*>(std::memchr(data + end + 1, '\n', after_limit - std::min(after_limit, end + 1)));
      end = newline == nullptr ? after_limit : static_cast<std::size_t>(newline - data);
    }
    std::string context(data + begin, found.line_begin - begin);
    hit.context_offset = context.size();
    context.append(hit.text);
    if (end > found.line_end) {
      context.append(data + found.line_end, end - found.line_end);
    }
    hit.context = std::move(context);
  }

public:
  const char* m_base = nullptr;  // data of the chunk being scanned

private:
  const Matcher& m_matcher;
  const ScanOptions& m_options;
  std::vector<std::size_t> m_signatures;
  std::vector<Found> m_found;
};

// Reads every log into chunks and hands them to `process`; owns the buffers.
class Pipeline
{
public:
  Pipeline(const Matcher& matcher, const ScanOptions& options)
    : m_matcher(matcher),
      m_options(options),
      m_block(std::max<std::size_t>(options.block_bytes, 64u << 10))
  {
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    m_threads = options.threads != 0 ? options.threads : hardware;
    const std::size_t buffers = std::min<std::size_t>(k_max_buffers, 2 * m_threads + 1);
    for (std::size_t i = 0; i < buffers; ++i) {
      auto chunk = std::make_unique<Chunk>();
      chunk->capacity = k_before_bytes + 2 * m_block + k_after_bytes;
      chunk->data = std::make_unique<char[]>(chunk->capacity);
      m_free.push(std::move(chunk));
    }
  }

  ScanResult run(std::vector<LogStream>& logs)
  {
    std::vector<std::thread> workers;
    for (unsigned i = 0; i < m_threads; ++i) {
      workers.emplace_back([this] { work(); });
    }
    std::exception_ptr failure;
    ScanResult out;
    try {
      for (std::size_t file = 0; file < logs.size(); ++file) {
        out.names.push_back(logs[file].name);
        out.bytes.push_back(read_log(logs[file], file));
      }
    } catch (...) {
      failure = std::current_exception();
    }
    m_work.close();
    for (auto& worker : workers) {
      worker.join();
    }
    if (!failure && m_failure) {
      failure = m_failure;
    }
    if (failure) {
      std::rethrow_exception(failure);
    }
    merge(out);
    return out;
  }

private:
  using ChunkPtr = std::unique_ptr<Chunk>;

  void work()
  {
    BlockScanner scanner(m_matcher, m_options);
    ChunkPtr chunk;
    while (m_work.pop(chunk)) {
      try {
        scanner.m_base = chunk->data.get();
        scanner.run(*chunk);
      } catch (...) {
        std::lock_guard lock(m_failure_mutex);
        m_failure = std::current_exception();
      }
      m_free.push(std::move(chunk));
    }
  }

  // Return the bytes read from `log`.
  std::size_t read_log(LogStream& log, std::size_t file)
  {
    std::string before;  // context above the next body
    std::string carry;   // the start of the next body
    std::size_t offset = 0;
    for (bool end = false; !end;) {
      ChunkPtr chunk;
      m_free.pop(chunk);
      char* data = chunk->data.get();
      std::memcpy(data, before.data(), before.size());
      std::memcpy(data + before.size(), carry.data(), carry.size());
      chunk->body_begin = before.size();
      std::size_t filled = before.size() + carry.size();
      const std::size_t want = chunk->capacity - filled;
      std::size_t got = 0;
      while (got < want) {
        const std::size_t n = log.read(data + filled + got, want - got);
        if (n == 0) {
          end = true;
          break;
        }
        got += n;
      }
      filled += got;
      chunk->filled = filled;
      chunk->body_end = end ? filled : body_end(data, chunk->body_begin, filled);
      chunk->offset = offset;
      offset += chunk->body_end - chunk->body_begin;
      const std::size_t keep_from = chunk->body_end - std::min(chunk->body_end - chunk->body_begin, k_before_bytes);
      before.assign(data + keep_from, chunk->body_end - keep_from);
      carry.assign(data + chunk->body_end, filled - chunk->body_end);
      if (chunk->body_end == chunk->body_begin) {
        m_free.push(std::move(chunk));
        continue;
      }
      {
        std::lock_guard lock(m_results_mutex);
        m_results.push_back(Result{file, 0, {}, {}});
        chunk->result = &m_results.back();
      }
      m_work.push(std::move(chunk));
    }
    return offset;
  }

  // End the body at the last line end that leaves k_after_bytes below it;
  // a line longer than a block is cut there.
  std::size_t body_end(const char* data, std::size_t body_begin, std::size_t filled) const
  {
    const std::size_t limit = filled - k_after_bytes;
    const auto* newline = static_cast<const char*>(::memrchr(data + body_begin, '\n', limit - body_begin));
    return newline == nullptr ? limit : static_cast<std::size_t>(newline - data) + 1;
  }

  void merge(ScanResult& out)
  {
    out.hits_per_signature = m_options.hits_per_signature;
    out.lines.assign(out.names.size(), 0);
    out.head_lines.assign(out.names.size(), {});
    const std::size_t head_room =
      std::max<std::size_t>(64u << 10, m_options.head_keep_bytes / std::max<std::size_t>(1, out.names.size()));
    std::map<std::pair<std::size_t, std::size_t>, std::size_t> kept;  // (file, signature)
    for (Result& result : m_results) {
      for (Hit& hit : result.hits) {
        std::size_t& count = kept[{hit.file, hit.signature}];
        if (count++ >= m_options.hits_per_signature) {
          continue;
        }
        hit.line += out.lines[result.file] + 1;
        out.hits.push_back(std::move(hit));
      }
      out.lines[result.file] += result.newlines;
      std::string& head = out.head_lines[result.file];
      const std::size_t room = head_room > head.size() ? head_room - head.size() : 0;
      head.append(result.head_lines, 0, std::min(room, result.head_lines.size()));
    }
  }

  const Matcher& m_matcher;
  const ScanOptions& m_options;
  std::size_t m_block;
  unsigned m_threads = 1;
  Queue<ChunkPtr> m_free;
  Queue<ChunkPtr> m_work;
  std::mutex m_results_mutex;
  std::deque<Result> m_results;
  std::mutex m_failure_mutex;
  std::exception_ptr m_failure;
};

} // namespace

ScanResult scan_streams(std::vector<LogStream> logs, const Matcher& matcher, const ScanOptions& options)
{
  Pipeline pipeline(matcher, options);
  return pipeline.run(logs);
}

ScanResult scan_logs(const std::vector<LogFile>& logs, const Matcher& matcher, const ScanOptions& options)
{
  std::vector<LogStream> streams;
  for (const auto& log : logs) {
    auto text = std::make_shared<std::string_view>(log.text);
    streams.push_back({log.name, [text](char* buffer, std::size_t size) {
                         const std::size_t n = std::min(size, text->size());
                         std::memcpy(buffer, text->data(), n);
                         text->remove_prefix(n);
                         return n;
                       }});
  }
  return scan_streams(std::move(streams), matcher, options);
}

} // namespace lg::diagnose
