// Adjusting a diagnosis with what the deciding lines and the facts say: the
// numbers of an OOM message (fragmentation / capacity / other process) and
// facts such as "expandable_segments is already on". Internal to diagnose.
#pragma once

#include "diagnose/diagnose.hpp"

#include <string>
#include <string_view>

namespace lg::diagnose {

struct Facts
{
  bool expandable_segments_set = false;
  bool expandable_segments_unsupported = false;
  bool training_finished = false;
  bool exception_ignored = false;  // CPython printed "Exception ignored in: …" (a __del__ at shutdown)
  bool job_failed = false;  // an exit status or Slurm teardown line was seen
};

// Set the fix, suggested change and retryable of `diagnosis` from its
// category's defaults, or from `sig`'s overrides when `sig` decided that
// same category.
void apply_defaults(Diagnosis& diagnosis, const Signature* sig, const Catalogue& catalogue);

// Return the OOM message that starts on the line at `offset` of `text`: that
// line and up to a few continuation lines (wrapped messages, "[rankN]: "
// prefixes removed), whitespace collapsed.
std::string gather_oom_message(std::string_view text, std::size_t offset);

// Re-decide an OOM `diagnosis` from `message`'s numbers and `facts`.
void refine_oom(Diagnosis& diagnosis, std::string_view message, const Facts& facts,
                const Catalogue& catalogue);

// Adjust the diagnosis for facts that change it: training had finished when
// Slurm stopped the job (`deciding_line` is the time-limit or teardown line)
// is a shutdown hang, hang_no_progress, not a reason to ask for more time.
void apply_facts(Diagnosis& diagnosis, const Facts& facts, std::string_view deciding_line,
                 const Catalogue& catalogue);

} // namespace lg::diagnose
