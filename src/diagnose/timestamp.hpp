// Timestamps in log lines, to order events across ranks and files: ISO-like
// dates (Slurm, Python logging, NeMo, torchrun) and PyTorch/glog "E0626 06:24:44".
#pragma once

#include <optional>
#include <string_view>

namespace lg::diagnose {

struct Timestamp
{
  int year = 0;  // 0 when the format has no year (glog)
  int month = 0;
  int day = 0;
  double seconds = 0;  // since midnight
};

// Return the first timestamp in `line`, or nullopt.
std::optional<Timestamp> find_timestamp(std::string_view line);

// Return <0, 0 or >0 as `a` is before, at or after `b`; years are compared
// only when both are known.
int compare(const Timestamp& a, const Timestamp& b);

} // namespace lg::diagnose
