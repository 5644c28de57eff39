// Scan speed of diagnose against grep -E with the catalogue's patterns.
#pragma once

#include "diagnose/matcher.hpp"

#include <cstddef>

namespace lg::bench {

// Generate a `bytes`-sized synthetic log in a temporary directory, time
// diagnose and `grep -E -c -f patterns.txt` on it, print both, clean up.
void run_speed(const diagnose::Matcher& matcher, std::size_t bytes);

} // namespace lg::bench
