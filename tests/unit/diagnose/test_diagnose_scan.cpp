// The scanner: line numbers across blocks and threads, line endings, caps.
#include "diagnose/scan.hpp"

#include <doctest/doctest.h>

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
    const auto hits = scan_logs({{"a", text}, {"b", "x\nKilled\n"}}, matcher, options);
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
  const auto hits = scan_logs({{"a", text}}, matcher, options);
  REQUIRE(hits.size() == 3);
  CHECK(hits[2].line == 3);
}

TEST_SUITE_END();
