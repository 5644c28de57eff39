// util/log_reader: plain, gzip and zstd logs read as one stream of text in
// pieces of any size; a cut compressed stream is an error, never a shorter
// "clean" text (issue 10: a gzip'd OOM log was reported "no failure").
// Compressed inputs are made with zlib and libzstd (support/compress.hpp).
#include "util/error.hpp"
#include "util/log_reader.hpp"

#include "support/compress.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

namespace {

struct LogReaderFixture
{
  lg::testing::TempDir dir{"lg-test-log-reader"};

  std::string write(const std::string& name, const std::string& bytes) const
  {
    const auto path = (dir.path / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
};

// Everything `reader` gives, asking for `piece` bytes at a time.
std::string read_log_whole(lg::LogReader& reader, std::size_t piece)
{
  std::string out;
  std::vector<char> buffer(piece);
  for (std::size_t n; (n = reader.read(buffer.data(), buffer.size())) > 0;) {
    out.append(buffer.data(), n);
  }
  return out;
}

std::string read_log_path(const std::string& path, std::size_t piece)
{
  lg::LogReader reader(path);
  return read_log_whole(reader, piece);
}

// 24,000 lines, about 2.4 MiB, over 256 KiB compressed: more than the
// reader's input buffer, so refills and partial outputs all happen.
const std::string& log_reader_text()
{
  static const std::string text = lg::testing::varied_log_text(24000);
  return text;
}

}  // namespace

TEST_SUITE_BEGIN("util");

TEST_CASE_FIXTURE(LogReaderFixture, "log_reader: a plain log is its bytes, in pieces of any size")
{
  const std::string path = write("a.log", log_reader_text());
  lg::LogReader reader(path);
  CHECK(reader.format() == "plain");
  CHECK(reader.name() == path);
  CHECK(read_log_whole(reader, 1u << 20) == log_reader_text());
  CHECK(read_log_path(path, 7) == log_reader_text());
  // A file shorter than the magic-byte peek, and one that starts like no
  // magic but holds a gzip magic later, stay plain text.
  CHECK(read_log_path(write("short.log", "\x1f"), 64) == "\x1f");
  CHECK(read_log_path(write("late.log", "x\x1f\x8b"), 64) == "x\x1f\x8b");
}

TEST_CASE_FIXTURE(LogReaderFixture, "log_reader: an empty log reads as no text, not as an error")
{
  const std::string path = write("empty.log", "");
  lg::LogReader reader(path);
  CHECK(reader.format() == "plain");
  char byte = 0;
  CHECK(reader.read(&byte, 1) == 0);
  CHECK(reader.read(&byte, 1) == 0);
}

TEST_CASE_FIXTURE(LogReaderFixture, "log_reader: gzip, one member or a concatenation as zcat reads it")
{
  const std::string& text = log_reader_text();
  const std::string member = lg::testing::gzip_member(text);
  REQUIRE(member.size() > (256u << 10));
  const std::string path = write("a.log.gz", member);
  lg::LogReader reader(path);
  CHECK(reader.format() == "gzip");
  CHECK(read_log_whole(reader, 1u << 20) == text);
  for (const std::size_t piece : {7u, 4096u, 5u << 20}) {
    CAPTURE(piece);
    CHECK(read_log_path(path, piece) == text);
  }
  // cat a.gz b.gz > ab.gz (logrotate, appended chunks): both texts.
  const std::string both = write("ab.log.gz", member + lg::testing::gzip_member("tail line\n"));
  CHECK(read_log_path(both, 4096) == text + "tail line\n");
  // An empty gzip member is a valid, empty log.
  CHECK(read_log_path(write("empty.log.gz", lg::testing::gzip_member("")), 64).empty());
}

TEST_CASE_FIXTURE(LogReaderFixture, "log_reader: zstd, with and without checksum, several frames, pieces of any size")
{
  // Pieces smaller than what one zstd block decodes to leave decoded bytes
  // inside the decoder after the last input byte was consumed: the reader
  // must flush them, not take the input's end for a cut stream.
  const std::string& text = log_reader_text();
  for (const bool checksum : {false, true}) {
    CAPTURE(checksum);
    const std::string frame = lg::testing::zstd_frame(text, checksum);
    REQUIRE(frame.size() > (256u << 10));
    const std::string path = write("a.log.zst", frame);
    lg::LogReader reader(path);
    CHECK(reader.format() == "zstd");
    CHECK(read_log_whole(reader, 1u << 20) == text);
    for (const std::size_t piece : {7u, 4096u, 100000u, 5u << 20}) {
      CAPTURE(piece);
      CHECK(read_log_path(path, piece) == text);
    }
  }
  const std::string frames = lg::testing::zstd_frame(text, false) + lg::testing::zstd_frame("", false)
                             + lg::testing::zstd_frame("tail line\n", true);
  const std::string path = write("abc.log.zst", frames);
  for (const std::size_t piece : {7u, 4096u, 1u << 20}) {
    CAPTURE(piece);
    CHECK(read_log_path(path, piece) == text + "tail line\n");
  }
}

TEST_CASE_FIXTURE(LogReaderFixture, "log_reader: a cut gzip stream is an error wherever it is cut")
{
  // The deflate data, its last byte, and inside the 8-byte CRC32/ISIZE trailer
  // (RFC 1952 section 2.2): each must throw, never end quietly.
  const std::string member = lg::testing::gzip_member(log_reader_text());
  for (const std::size_t keep :
       {std::size_t{10}, member.size() / 2, member.size() - 9, member.size() - 4, member.size() - 1}) {
    CAPTURE(keep);
    const std::string path = write("cut.log.gz", member.substr(0, keep));
    CHECK_THROWS_AS(read_log_path(path, 1u << 20), lg::InputError);
    CHECK_THROWS_WITH(read_log_path(path, 7), doctest::Contains("gzip"));
  }
  // A whole member followed by a cut one: the cut is still seen.
  const std::string path = write("cut2.log.gz", member + member.substr(0, member.size() / 3));
  CHECK_THROWS_AS(read_log_path(path, 4096), lg::InputError);
  // Garbage after the magic bytes is damage, not text.
  CHECK_THROWS_AS(read_log_path(write("bad.log.gz", std::string("\x1f\x8b") + std::string(64, 'x')), 64),
                  lg::InputError);
}

TEST_CASE_FIXTURE(LogReaderFixture, "log_reader: a cut zstd stream is an error wherever it is cut")
{
  for (const bool checksum : {false, true}) {
    const std::string frame = lg::testing::zstd_frame(log_reader_text(), checksum);
    for (const std::size_t keep : {std::size_t{6}, frame.size() / 2, frame.size() - 4, frame.size() - 1}) {
      CAPTURE(checksum);
      CAPTURE(keep);
      const std::string path = write("cut.log.zst", frame.substr(0, keep));
      for (const std::size_t piece : {7u, 4096u, 1u << 20}) {
        CAPTURE(piece);
        CHECK_THROWS_AS(read_log_path(path, piece), lg::InputError);
      }
    }
  }
  // A corrupted byte inside a checksummed frame is caught by the checksum or the decoder.
  std::string frame = lg::testing::zstd_frame(log_reader_text(), true);
  frame[frame.size() / 2] = static_cast<char>(frame[frame.size() / 2] ^ 0x55);
  CHECK_THROWS_AS(read_log_path(write("flip.log.zst", frame), 1u << 20), lg::InputError);
}

TEST_CASE_FIXTURE(LogReaderFixture, "log_reader: formats it cannot read are refused by name")
{
  CHECK_THROWS_WITH(lg::LogReader(write("a.log.bz2", "BZh91AY&SY")), doctest::Contains("bzip2-compressed"));
  CHECK_THROWS_WITH(lg::LogReader(write("a.log.xz", std::string("\xfd"
                                                                "7zXZ\0",
                                                                6))),
                    doctest::Contains("xz-compressed"));
}

TEST_SUITE_END();
