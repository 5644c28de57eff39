// Accuracy of diagnose on labelled failure-log excerpts (JSON list of
// records {id, category, is_failure, ambiguous, alt_category, text}).
#pragma once

#include "diagnose/matcher.hpp"

#include <optional>
#include <string>

namespace lg::bench {

// Print per-category precision/recall, the confusion pairs, overall accuracy,
// accuracy on OOM and on other failures, and the number of negative excerpts
// called a failure; return overall accuracy, or nullopt (with a line saying
// so) when `path` does not exist.
std::optional<double> run_accuracy(const std::string& path, const diagnose::Matcher& matcher, bool verbose);

} // namespace lg::bench
