// Accuracy of diagnose on labelled failure-log excerpts (JSON list of
// records {id, category, is_failure, ambiguous, alt_category, text}).
#pragma once

#include "diagnose/matcher.hpp"

#include <string>

namespace lg::bench {

// Print per-category precision/recall, overall accuracy and the number of
// negative excerpts called a failure; return overall accuracy.
double run_accuracy(const std::string& path, const diagnose::Matcher& matcher, bool verbose);

} // namespace lg::bench
