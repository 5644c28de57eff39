// util/line_reader: JSON lines on standard input are read in blocks; memory
// stays bounded by the line limit and an over-long line is skipped, not
// fatal (a line of /dev/zero-like bytes once grew without end).
#include "util/input.hpp"
#include "util/line_reader.hpp"

#include "support/temp_dir.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

namespace {

std::vector<lg::InputLine> line_reader_lines(const std::string& bytes, std::size_t max_bytes)
{
  lg::testing::TempDir dir("lg-test-line-reader");
  const auto path = dir.path / "lines.jsonl";
  std::ofstream(path, std::ios::binary) << bytes;
  lg::InputFile input(path.string(), "job lines");
  lg::LineReader reader(input, max_bytes);
  std::vector<lg::InputLine> lines;
  while (auto line = reader.next()) {
    lines.push_back(std::move(*line));
  }
  return lines;
}

} // namespace

TEST_SUITE_BEGIN("util");

TEST_CASE("line_reader: lines, CRLF, a last line without newline, empty lines counted")
{
  const auto lines = line_reader_lines("a\r\nbb\n\nccc", 100);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].text == "a");
  CHECK(lines[1].text == "bb");
  CHECK(lines[2].text.empty());
  CHECK(lines[3].text == "ccc");
  CHECK(lines[3].number == 4);
  CHECK(line_reader_lines("", 100).empty());
}

TEST_CASE("line_reader: a line longer than the limit is flagged and the next line still read")
{
  // Lines span the reader's 64 KiB blocks: 200,000 bytes, then a short one.
  const std::string longer(200000, 'x');
  const auto lines = line_reader_lines(longer + "\nshort\n" + std::string(150000, 'y') + "\n", 160000);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].too_long);
  CHECK(lines[0].text.empty());
  CHECK_FALSE(lines[1].too_long);
  CHECK(lines[1].text == "short");
  CHECK(lines[1].number == 2);
  CHECK_FALSE(lines[2].too_long);
  CHECK(lines[2].text.size() == 150000);
}

TEST_SUITE_END();
