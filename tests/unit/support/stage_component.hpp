// The bytes of one named component of a pipeline stage's estimate (0 when the
// stage has no such component).
#pragma once

#include "estimate/estimate.hpp"

#include <string_view>

namespace lg::testing {

inline double stage_component(const lg::estimate::StageEstimate& stage, std::string_view name)
{
  for (const auto& [n, bytes] : stage.components) {
    if (n == name) {
      return bytes;
    }
  }
  return 0;
}

} // namespace lg::testing
