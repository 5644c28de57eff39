// The literal prefilter: which patterns it covers (a pattern it does not is
// "residual" and costs an RE2 DFA pass over every block of every log), and
// that a covered pattern still finds its lines.
#include "diagnose/prefilter.hpp"
#include "diagnose/scan.hpp"

#include "support/default_matcher.hpp"

#include <doctest/doctest.h>

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

TEST_SUITE_END();
