// The scanner: line numbers across blocks and threads, line endings, caps.
#include "diagnose/scan.hpp"
#include "util/log_reader.hpp"

#include "support/compress.hpp"
#include "support/default_matcher.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

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

TEST_CASE("scan: NCCL init lines of the head are kept at any alignment, exact case, to the end of the text")
{
  // NCCL's init lines ("node7:1234:1234 [3] NCCL INFO comm 0x55 rank 3
  // nranks 8 cudaDev 3 busId 1000 - Init COMPLETE", NCCL init.cc) name each
  // rank's host; the head search compares the marker 16 start positions at
  // a time, so the marker is put at every offset and right at the end.
  const Matcher& matcher = lg::testing::default_matcher();
  for (std::size_t pad = 0; pad < 40; ++pad) {
    CAPTURE(pad);
    const std::string init = std::string(pad, 'x') + " [3] NCCL INFO comm 0x55 rank 3 nranks 8 - Init COMPLETE";
    const std::string text = "nccl info lower case is not the marker\n" + init + "\nplain\n" + std::string(pad, 'y') + "NCCL";
    const auto result = scan_logs({{"rank3.log", text}}, matcher);
    REQUIRE(result.head_lines.size() == 1);
    CHECK(result.head_lines[0] == init + "\n" + std::string(pad, 'y') + "NCCL\n");
  }
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

namespace {

// The filler of a Megatron-like log until `text` ends exactly `before`
// bytes ahead of `target`, then `line`: it straddles offset `target`.
void straddle_line(std::string& text, std::size_t target, std::size_t before, const std::string& line)
{
  const std::string filler = " [2024-05-01 12:00:00] iteration 100/ 100000 | lm loss: 2.0 | grad norm: 0.3 |\n";
  while (text.size() + filler.size() + 2 <= target - before) {
    text += filler;
  }
  text += std::string(target - before - text.size() - 1, '.') + "\n";
  text += line + "\n";
}

}  // namespace

TEST_CASE("scan: a signature line straddling a block boundary still matches, plain and gzip")
{
  // The scan reads 2 MiB blocks (ScanOptions::block_bytes) into buffers of
  // 4 KiB + 2 blocks + 8 KiB and cuts a body at a line end: put the NVIDIA
  // driver's Xid line (the Xid catalogue's message, signatures/default.toml)
  // across every MiB up to 9 and across the first buffer's edges, and
  // expect each one, on the plain text and on the same text gzip'd (the
  // second buffer ends near 8 MiB + 16 KiB).
  const std::string xid = "NVRM: Xid (PCI:0000:06:00): 79, pid=1234, GPU has fallen off the bus.";
  std::vector<std::size_t> targets;
  for (std::size_t mib = 1; mib <= 9; ++mib) {
    targets.push_back(mib << 20);
    if (mib == 4) {
      targets.push_back((4u << 20) + 4096);         // the body limit of the first buffer
      targets.push_back((4u << 20) + 4096 + 8192);  // the first buffer's end
    }
  }
  std::string text;
  std::vector<std::size_t> offsets;
  for (const std::size_t target : targets) {
    straddle_line(text, target, 20, xid);
    offsets.push_back(target - 20);
  }
  straddle_line(text, text.size() + 200, 10, "tail");
  std::vector<std::size_t> lines;
  for (const std::size_t offset : offsets) {
    lines.push_back(
      static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n')) + 1);
  }

  ScanOptions options;  // the default block size
  options.hits_per_signature = 100;
  lg::testing::TempDir dir("lg-test-scan-straddle");
  const auto gz = (dir.path / "straddle.log.gz").string();
  std::ofstream(gz, std::ios::binary) << lg::testing::gzip_member(text);
  auto reader = std::make_shared<lg::LogReader>(gz);
  LogStream compressed{"straddle.log.gz",
                       [reader](char* buffer, std::size_t size) { return reader->read(buffer, size); }};
  for (const ScanResult& result : {scan_logs({{"straddle.log", text}}, lg::testing::default_matcher(), options),
                                   scan_streams({compressed}, lg::testing::default_matcher(), options)}) {
    CHECK(result.bytes.front() == text.size());
    std::vector<const Hit*> xids;
    for (const Hit& hit : result.hits) {
      if (hit.text == xid) {
        xids.push_back(&hit);
      }
    }
    REQUIRE(xids.size() == offsets.size());
    for (std::size_t i = 0; i < offsets.size(); ++i) {
      CAPTURE(targets[i]);
      CHECK(xids[i]->offset == offsets[i]);
      CHECK(xids[i]->line == lines[i]);
    }
  }
}
