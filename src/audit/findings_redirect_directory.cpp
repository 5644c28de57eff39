// `OUT=$BASE/$SLURM_JOB_NAME-$SLURM_JOB_ID; … cmd &>> $OUT/train.log` with
// nothing creating $OUT: a directory named after this job's ID cannot exist
// before the job, and bash opens a redirection's file before it runs the
// command ("No such file or directory"; the command is not run at all:
// bash(1), REDIRECTION). Held-out round 30's Frontier DeepCAM job, whose
// training command was such a redirection. The same reasoning as
// audit.output_directory for #SBATCH --output, for the script's own
// redirections; only directories with the job ID in them, which nothing
// before the job can have made.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace lg::audit::detail {

namespace {

bool job_id_directory(const std::string& dir)
{
  return dir.find("SLURM_JOB_ID") != std::string::npos || dir.find("SLURM_JOBID") != std::string::npos;
}

} // namespace

void redirect_directory_findings(FindingContext& c)
{
  const ScriptModel& m = c.model;
  // A sourced file may make it; a venv's `activate` makes nothing.
  if (std::any_of(m.sources.begin(), m.sources.end(), [&](int offset) { return !activation(m, offset); })) {
    return;
  }
  for (std::size_t k = 0; k < m.commands.size(); ++k) {
    const Command& command = m.commands[k];
    for (const Word& out : command.outputs) {
      const std::string& target = out.text();
      const auto slash = target.rfind('/');
      if (slash == std::string::npos || slash == 0) {
        continue;
      }
      const std::string dir = target.substr(0, slash);
      if (!job_id_directory(dir)) {
        continue;
      }
      // Made before: `mkdir [-p] DIR` (or a directory below it), or a mkdir
      // whose operand cannot be read (`mkdir -p "$(dirname "$OUT")"`).
      bool made = false;
      for (std::size_t j = 0; j < k && !made; ++j) {
        const auto& w = m.commands[j].words;
        if (w.empty() || !w[0].known || (w[0].text() != "mkdir" && !w[0].text().ends_with("/mkdir"))) {
          continue;
        }
        for (std::size_t i = 1; i < w.size() && !made; ++i) {
          const std::string& t = w[i].text();
          // Unknown parts keep their source text (`/tmp/cache-${SLURM_JOB_ID}`),
          // so a word is compared as written; one that starts with an unknown
          // expansion (`$LOGDIR`, `$(dirname …)`) may be the directory.
          made = t.find("$(") != std::string::npos || (!w[i].known && t.starts_with("$"))
                 || (!t.starts_with("-") && (t == dir || t.starts_with(dir + "/") || t == dir + "/"));
        }
      }
      if (made) {
        continue;
      }
      c.add(Severity::warning, "audit.redirect_directory",
            fmt::format("the redirection into {} needs the directory {}, named after this job's ID, and nothing in "
                        "the script creates it: bash fails to open the file (\"No such file or directory\") and does "
                        "not run the command",
                        target, dir),
            fmt::format("mkdir -p \"{}\" before the command", dir), out.offset);
      return;  // one per script: every later redirection there has the same cause
    }
  }
}

} // namespace lg::audit::detail
