// Reading a shell script into a ScriptModel (script_model.hpp): #SBATCH
// directives as sbatch reads them, assignments/exports/unsets with a small
// static variable environment (strings, arrays, $VAR/${VAR} expansion,
// ${VAR:-default}, $(( … ))), heredocs skipped as data, and the launch lines
// with their expanded argv and container flags. Pure: text in, model out.
// Linear in the size of the text; never throws on any input.
#pragma once

#include "audit/script_model.hpp"

#include <string>
#include <vector>

namespace lg::audit {

struct ReadOptions
{
  // A mustache template (templates/*.sbatch.mustache): lines that hold only a
  // {{#section}}/{{/section}} tag are dropped, and {{…}} values are unknown.
  bool template_mode = false;
};

ScriptModel read_script(std::string text, const ReadOptions& options = {});

// The job as its author meant it (read_script does this before it evaluates
// the script, so the SLURM_* variables the lines set are seeded too): an
// #SBATCH line after the first command that sets an option no line above it
// sets is judged as the job's (`ignored` cleared; `late` stays, and
// audit.directive_ignored reports it), so the other rules judge the job the
// directive fix leads to, not Slurm's defaults.
// Held-out round 28: `set -euo pipefail` above 14 #SBATCH lines hid a
// `srun torchrun` under --ntasks-per-node=4 that moving them up would expose.
void read_late_directives_as_meant(ScriptModel& model);

namespace detail {

// The #SBATCH options of `text`, outside the heredoc bodies (sorted
// [begin, end) offsets); those after `first_command_offset` are marked ignored.
// `strays` (if given) receives the words of read lines that are neither an
// option nor an option's value (offset, word).
std::vector<Directive> read_directives(const std::string& text, const std::vector<int>& line_starts,
                                       int first_command_offset, const std::vector<std::pair<int, int>>& heredocs,
                                       std::vector<std::pair<int, std::string>>* strays = nullptr);

} // namespace detail

} // namespace lg::audit
