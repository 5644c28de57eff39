// What each job-file key changes in launchguard's judgement (the "what it
// changes" column of docs/job-file.md): which estimate, rule, environment
// variable or script line the key moves. One entry per schema key, checked
// against the schema by tests/unit/config/test_job_file_doc.cpp.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace lg::config {

// (dotted key, what it changes), e.g. ("parallelism.tp", "memory: …").
const std::vector<std::pair<std::string_view, std::string_view>>& key_effects();

// What `dotted_key` ("parallelism.tp") changes, or empty when the table has
// no entry for it.
std::string_view key_effect(std::string_view dotted_key);

} // namespace lg::config
