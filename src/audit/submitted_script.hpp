// `sbatch <<EOF … EOF`: a script that submits its job from a heredoc. The
// body is the batch script sbatch reads from its standard input (sbatch(1):
// "If no file name is specified on the command line, sbatch will read the
// script from standard input"). Pure: text in, texts out.
#pragma once

#include "audit/script_model.hpp"

#include <string>
#include <vector>

namespace lg::audit::detail {

struct SubmittedScript
{
  // The body as the job script reads, line for line with the heredoc: in
  // an unquoted heredoc `\$`, `\`` and `\\` lose their backslash (bash(1),
  // "Here Documents"; `\` before a newline is kept, a continuation the job's
  // shell reads the same way); `<<-` strips leading tabs. `$NAME` the
  // submitting shell expands is left as written.
  std::string text;
  int first_line = 0;      // the outer line of the body's first line
  int sbatch_offset = -1;  // the sbatch command
};

std::vector<SubmittedScript> submitted_scripts(const ScriptModel& model);

}  // namespace lg::audit::detail
