// The scanner: line numbers across blocks and threads, line endings, caps.
#include "diagnose/scan.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

using namespace lg::diagnose;

TEST_SUITE_BEGIN("diagnose");

TEST_CASE("scan: line numbers are exact across many small blocks and threads")
{
  const Matcher matcher(default_catalogue());
  std::string text;
  for (int i = 1; i <= 20000; ++i) {
    text += i % 5000 == 0 ? "NVRM: Xid (PCI:0000:06:00): 79, GPU has fallen off the bus.\r\n"
                          : "iteration " + std::to_string(i) + " | lm loss: 2.0 |\n";
  }
  text += "Killed";  // no final newline
  for (const unsigned threads : {1u, 2u, 4u}) {
    ScanOptions options;
    options.threads = threads;
    options.block_bytes = 4096;
    const auto hits = scan_logs({{"a", text}, {"b", "x\nKilled\n"}}, matcher, options).hits;
    REQUIRE(hits.size() == 6);
    CHECK(hits[0].line == 5000);
    CHECK(hits[0].text == "NVRM: Xid (PCI:0000:06:00): 79, GPU has fallen off the bus.");
    CHECK(hits[3].line == 20000);
    CHECK(hits[4].line == 20001);
    CHECK(hits[4].text == "Killed");
    CHECK(hits[5].file == 1);
    CHECK(hits[5].line == 2);
  }
}

TEST_CASE("scan: only the first hits per file and signature are kept")
{
  const Matcher matcher(default_catalogue());
  std::string text;
  for (int i = 0; i < 1000; ++i) {
    text += "Killed\n";
  }
  ScanOptions options;
  options.hits_per_signature = 3;
  options.block_bytes = 4096;
  const auto hits = scan_logs({{"a", text}}, matcher, options).hits;
  REQUIRE(hits.size() == 3);
  CHECK(hits[2].line == 3);
}

TEST_SUITE_END();

TEST_CASE("scan: a stream read a few bytes at a time gives the hits, lines and context of the text")
{
  // Issue 10: the logs were read whole (memory twice the log); now they are
  // streamed through fixed buffers, so a hit near a block end must still
  // carry the lines around it (the OOM message continues on the next lines).
  const Matcher matcher(default_catalogue());
  std::string text;
  for (int i = 1; i <= 30000; ++i) {
    text += "0: iteration " + std::to_string(i) + " | lm loss: 2.0 | grad norm: 0.3 |\n";
    if (i == 21000) {
      text += "[2024-05-01 12:00:00] 17: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
              "17: GPU 1 has a total capacity of 79.10 GiB\n";
    }
  }
  const LogFile whole{"a", text};
  const ScanResult expected = scan_logs({whole}, matcher);
  auto rest = std::make_shared<std::string_view>(text);
  LogStream trickle{"a", [rest](char* buffer, std::size_t size) {
                      const std::size_t n = std::min<std::size_t>({size, rest->size(), 7});
                      std::memcpy(buffer, rest->data(), n);
                      rest->remove_prefix(n);
                      return n;
                    }};
  ScanOptions options;
  options.block_bytes = 64 << 10;  // the smallest: many blocks
  options.threads = 2;
  const ScanResult streamed = scan_streams({trickle}, matcher, options);
  REQUIRE(streamed.hits.size() == expected.hits.size());
  REQUIRE_FALSE(streamed.hits.empty());
  CHECK(streamed.bytes.front() == text.size());
  for (std::size_t i = 0; i < streamed.hits.size(); ++i) {
    CHECK(streamed.hits[i].line == expected.hits[i].line);
    CHECK(streamed.hits[i].offset == expected.hits[i].offset);
    CHECK(streamed.hits[i].context == expected.hits[i].context);
  }
  const Hit& oom = streamed.hits.front();
  CHECK(oom.line == 21001);
  CHECK(oom.context.substr(oom.context_offset).find("total capacity of 79.10 GiB") != std::string::npos);
  CHECK(oom.context.substr(0, oom.context_offset).find("iteration 21000") != std::string::npos);
}

TEST_CASE("scan: a stream that throws stops the scan with its error")
{
  const Matcher matcher(default_catalogue());
  LogStream broken{"a.gz", [](char*, std::size_t) -> std::size_t { throw std::runtime_error("cut short"); }};
  CHECK_THROWS_WITH(scan_streams({broken}, matcher), "cut short");
}
