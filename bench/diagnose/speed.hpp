// Scan speed of the command users run (`launchguard diagnose`, the real
// binary) against ripgrep and grep -E with the catalogue's patterns, with
// each one's wall time, CPU time and peak RSS, on generated logs.
#pragma once

#include "diagnose/matcher.hpp"

#include <string>
#include <vector>

namespace lg::bench {

struct SpeedOptions
{
  std::string launchguard;       // the binary to time
  std::vector<double> sizes_gb;  // one generated 64-rank log per size
  double per_rank_gb = 1.0;      // 64 per-rank files of this total size (0: skip)
  bool gzip = true;              // also a gzip'd copy of the first log
};

// Generate the logs in a temporary directory (skipping what the disk has no
// room for, and saying so), time every tool on each, print the figures and
// the ratios, delete the logs.
void run_speed(const diagnose::Matcher& matcher, const SpeedOptions& options);

} // namespace lg::bench
