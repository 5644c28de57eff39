// The shipped signature catalogue, compiled once per test program.
#pragma once

#include "diagnose/catalogue.hpp"
#include "diagnose/matcher.hpp"

namespace lg::testing {

inline const lg::diagnose::Matcher& default_matcher()
{
  static const lg::diagnose::Matcher compiled(lg::diagnose::default_catalogue());
  return compiled;
}

} // namespace lg::testing
