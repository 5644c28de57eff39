// The literal prefilter: which patterns it covers (a pattern it does not is
// "residual" and costs an RE2 DFA pass over every block of every log), and
// that a covered pattern still finds its lines.
#include "diagnose/prefilter.hpp"
#include "diagnose/scan.hpp"

#include "support/default_matcher.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

TEST_SUITE_BEGIN("diagnose");

TEST_CASE("prefilter: an atom holding a line end does not make a pattern residual")
{
  // sacct's State and ExitCode columns ("OUT_OF_MEMORY    0:125"): RE2's
  // factoring of (^|\s)…\s+ yields atoms with "\n", which a line never holds;
  // they made the pattern residual, and the whole catalogue paid a DFA pass
  // per block for it (issue 10: diagnose slower than ripgrep).
  const lg::diagnose::Prefilter covered({R"((^|\s)OUT_OF_MEMORY\s+[0-9]+:[0-9]+(\s|$))"});
  CHECK(covered.covers(0));
  CHECK_FALSE(covered.atoms().empty());
  for (const auto& atom : covered.atoms()) {
    CHECK(atom.find('\n') == std::string::npos);
  }
  // Only atoms across a line end: nothing to look for in a line, so it stays
  // with the DFA rather than being dropped.
  const lg::diagnose::Prefilter spanning({R"(first line\nsecond line)"});
  CHECK_FALSE(spanning.covers(0));
}

TEST_CASE("prefilter: the shipped catalogue has no residual pattern, and its sacct lines still match")
{
  const auto& matcher = lg::testing::default_matcher();
  CHECK_FALSE(matcher.has_residual());
  // sacct -o JobID,State,ExitCode lines (Slurm's sacct(1) State names), the
  // state at the start, after spaces and after a tab.
  const std::vector<std::string> lines = {
    "4242.0       OUT_OF_MEMORY    0:125",
    "OUT_OF_MEMORY 0:125",
    "4242.batch\tOUT_OF_MEMORY\t0:125",
    "4243         TIMEOUT          0:0",
    "4244         NODE_FAIL        1:0",
  };
  std::string text = "iteration 1 | lm loss: 2.0 |\n";
  for (const auto& line : lines) {
    text += line + "\n";
  }
  lg::diagnose::ScanOptions options;
  options.hits_per_signature = 100;
  const auto hits = lg::diagnose::scan_logs({{"sacct.txt", text}}, matcher, options).hits;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    CAPTURE(lines[i]);
    bool found = false;
    for (const auto& hit : hits) {
      found = found || (hit.line == i + 2 && hit.text == lines[i]);
    }
    CHECK(found);
  }
}

namespace {

// A prefilter over literal patterns: "loss" and "killed" are short atoms
// (the SIMD fingerprint tier), the others long (the sampled tier).
const std::vector<std::string> k_literals = {"loss", "Killed", "uncorrectable ECC error", "Segmentation fault",
                                             "\\[Errno 28\\]"};

// Filler holding no atom, nor the start of one at its end.
std::string filler(std::size_t size)
{
  std::string text;
  while (text.size() < size) {
    text += "abcdefghij 0123456789 ";
  }
  text.resize(size);
  return text;
}

// Where find() lands in `text`, as an offset (text.size() when nothing).
std::size_t found_at(const lg::diagnose::Prefilter& prefilter, const std::string& text)
{
  return static_cast<std::size_t>(prefilter.find(text.data(), text.data() + text.size()) - text.data());
}

std::vector<lg::diagnose::Prefilter> both_paths()
{
  std::vector<lg::diagnose::Prefilter> out(2, lg::diagnose::Prefilter(k_literals));
  out[1].use_scalar_only();
  return out;
}

} // namespace

TEST_CASE("prefilter: each atom is found at every alignment, at the start and against the end of the range")
{
  // The SIMD tier reads 16 or 32 positions at a time and the long tier
  // samples every `stride` bytes: an atom at any offset, including one
  // that ends the range (the vector loop's tail), must be found. The
  // shipped catalogue's atoms are case folded by RE2's FilteredRE2, so the
  // log's case does not matter.
  const std::vector<std::string> spellings = {"loss", "LOSS", "killed", "KiLLeD", "uncorrectable ecc error",
                                              "UNCORRECTABLE ECC ERROR", "segmentation fault", "[errno 28]"};
  for (const auto& prefilter : both_paths()) {
    CHECK(prefilter.short_atoms() == 2);
    CHECK(prefilter.stride() == std::string("[errno 28]").size() - 3);
    for (const auto& atom : spellings) {
      for (std::size_t offset = 0; offset < 80; ++offset) {
        CAPTURE(atom);
        CAPTURE(offset);
        const std::string middle = filler(offset) + atom + filler(70);
        CHECK(found_at(prefilter, middle) == offset);
        const std::string last = filler(offset) + atom;  // ends the range
        CHECK(found_at(prefilter, last) == offset);
      }
    }
  }
}

TEST_CASE("prefilter: a cut atom, a lookalike of another byte and a partial match are not candidates")
{
  for (const auto& prefilter : both_paths()) {
    for (std::size_t offset = 0; offset < 40; ++offset) {
      CAPTURE(offset);
      // Cut by the end of the range (the next block holds the rest).
      CHECK(found_at(prefilter, filler(offset) + "los") == offset + 3);
      CHECK(found_at(prefilter, filler(offset) + "uncorrectable ECC erro") == offset + 22);
      // The fold to lower case is |0x20, which also maps '[' to '{': the
      // confirmation compares exactly, so "{errno 28}" is not "[errno 28]".
      const std::string lookalike = filler(offset) + "{errno 28}" + filler(30);
      CHECK(found_at(prefilter, lookalike) == lookalike.size());
      // A different byte anywhere in the atom.
      const std::string near = filler(offset) + "Killes loas uncorrectable ECC errxr" + filler(30);
      CHECK(found_at(prefilter, near) == near.size());
    }
  }
}

TEST_CASE("prefilter: find lands in the first line holding an atom, whichever tier finds it")
{
  // The scan skips to the end of the line find() returns: returning a
  // later line than the first one with an atom would lose a hit. The long
  // tier samples an atom some bytes after its start, so a short atom on a
  // later line can be seen first.
  for (const auto& prefilter : both_paths()) {
    for (std::size_t offset = 0; offset < 40; ++offset) {
      CAPTURE(offset);
      const std::string long_first = filler(offset) + "uncorrectable ECC error\nloss\n";
      CHECK(found_at(prefilter, long_first) == offset);
      const std::string short_first = filler(offset) + "killed\nSegmentation fault\n";
      CHECK(found_at(prefilter, short_first) == offset);
      // Nearest the end: the long atom right before the short one, one line.
      const std::string same_line = filler(offset) + "Segmentation faultloss";
      CHECK(found_at(prefilter, same_line) <= offset + 18);
    }
  }
}

TEST_CASE("prefilter: scanning with the shipped catalogue finds exactly the lines matching every line finds")
{
  // A differential check of the whole pipeline: generated lines mixing
  // pieces of Megatron iteration lines, NCCL and Slurm messages (each
  // pattern's upstream source is cited in the catalogue) in random case,
  // scanned in 64 KiB blocks (so hits fall across block edges), against
  // Matcher::match_line run on every line with no prefilter at all.
  const auto& matcher = lg::testing::default_matcher();
  const std::vector<std::string> pieces = {
    "iteration 100/ 500000 | lm loss: 2.316E+00 | loss scale: 1.0 | number of nan iterations:   0 |",
    "| lm loss: nan |", "loss=nan", "{'loss': nan, 'grad_norm': nan}", "Killed", "srun: error: node1: task 3: Killed",
    "slurmstepd: error: *** JOB 42 ON node1 CANCELLED AT 2024-05-01T10:00:00 DUE TO TIME LIMIT ***",
    "4242.0 TIMEOUT 0:0", "exitcode  : -11", "NCCL WARN Cuda failure 'out of memory'",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.", "Segmentation fault (core dumped)",
    "OSError: [Errno 28] No space left on device", "ordinary text", "x", "", "\t", "NCCL INFO comm 0x1 rank 3",
    "exits with return code = -9", "received SIGTERM", "uncorrectable ECC error encountered"};
  std::mt19937 random(20240501);  // fixed: the same text every run
  std::string text;
  std::vector<std::string> lines;
  while (text.size() < (300u << 10)) {
    std::string line;
    const std::size_t parts = random() % 4;
    for (std::size_t i = 0; i < parts; ++i) {
      std::string piece = pieces[random() % pieces.size()];
      if (random() % 4 == 0) {
        std::transform(piece.begin(), piece.end(), piece.begin(),
                       [&](char c) { return random() % 2 == 0 ? static_cast<char>(std::toupper(c)) : c; });
      }
      line += (random() % 3 == 0 ? " " : "") + piece;
    }
    lines.push_back(line);
    text += line + "\n";
  }
  std::vector<std::pair<std::size_t, std::size_t>> expected;  // (line, signature)
  std::vector<std::size_t> signatures;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    matcher.match_line(lines[i], signatures);
    for (const std::size_t sig : signatures) {
      expected.emplace_back(i + 1, sig);
    }
  }
  REQUIRE(expected.size() > 1000);
  lg::diagnose::ScanOptions options;
  options.block_bytes = 64u << 10;
  options.hits_per_signature = 1u << 20;
  std::vector<std::pair<std::size_t, std::size_t>> scanned;
  for (const auto& hit : lg::diagnose::scan_logs({{"generated.log", text}}, matcher, options).hits) {
    scanned.emplace_back(hit.line, hit.signature);
  }
  std::sort(scanned.begin(), scanned.end());
  CHECK(scanned == expected);
}

TEST_SUITE_END();
