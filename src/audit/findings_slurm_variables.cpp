// SLURM_* variables Slurm sets only when the job asks for what they hold
// (sbatch(1), OUTPUT ENVIRONMENT VARIABLES: SLURM_CPUS_PER_TASK "Only set if
// the --cpus-per-task option is specified", SLURM_NTASKS_PER_NODE "Only set
// if the --ntasks-per-node option is specified", SLURM_GPUS_PER_NODE "Only
// set if the --gpus-per-node option is specified" …). On the local Slurm
// 22.05: `sbatch -N1` had none of SLURM_NTASKS, SLURM_NTASKS_PER_NODE,
// SLURM_CPUS_PER_TASK, SLURM_GPUS_PER_NODE, SLURM_GPUS_ON_NODE; `-N1
// --gres=gpu:2` had SLURM_GPUS_ON_NODE=2 and no SLURM_GPUS_PER_NODE; `-N2`
// had no SLURM_NTASKS. A batch-shell `$SLURM_GPUS_PER_NODE` in a job that
// asks for `--gres=gpu:4` expands to nothing (`torchrun --nproc_per_node=`
// stops), and under `set -u` bash stops the script there (held-out round 28's
// job under `set -euo pipefail`).
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace lg::audit::detail {

namespace {

struct Conditional
{
  const char* variable;
  std::vector<const char*> options;  // any of them sets it
  const char* wanted;                // the option to name in the fix
};

const std::vector<Conditional>& conditionals()
{
  static const std::vector<Conditional> k = {
    {"SLURM_NTASKS_PER_NODE", {"ntasks-per-node"}, "--ntasks-per-node"},
    {"SLURM_CPUS_PER_TASK", {"cpus-per-task"}, "--cpus-per-task"},
    {"SLURM_GPUS_PER_NODE", {"gpus-per-node"}, "--gpus-per-node"},
    {"SLURM_GPUS_PER_TASK", {"gpus-per-task"}, "--gpus-per-task"},
    {"SLURM_GPUS", {"gpus"}, "--gpus"},
    {"SLURM_CPUS_PER_GPU", {"cpus-per-gpu"}, "--cpus-per-gpu"},
    {"SLURM_NTASKS", {"ntasks", "ntasks-per-node"}, "--ntasks or --ntasks-per-node"},
    {"SLURM_NPROCS", {"ntasks", "ntasks-per-node"}, "--ntasks or --ntasks-per-node"},
  };
  return k;
}

bool test_command(const Command& command)
{
  if (command.words.empty() || !command.words.front().known) {
    return false;
  }
  const std::string& t = command.words.front().text();
  return t == "[" || t == "[[" || t == "test";
}

} // namespace

void slurm_variable_findings(FindingContext& c)
{
  const ScriptModel& m = c.model;
  if (m.components > 1 || m.directives.empty()) {
    return;
  }
  if (!resources_in_script(m, 0)) {
    return;
  }
  int nounset = -1;
  for (const auto& command : m.commands) {
    if (nounset < 0 && command.depth == 0 && is_set_with(command, 'u', "nounset")) {
      nounset = command.begin;
    }
  }
  for (const Conditional& v : conditionals()) {
    if (std::any_of(v.options.begin(), v.options.end(), [&](const char* o) { return m.directive(o) != nullptr; })) {
      continue;
    }
    // Set by the script itself, or tested for (`[ -n "$SLURM_CPUS_PER_TASK" ]`): handled.
    if (std::any_of(m.assignments.begin(), m.assignments.end(), [&](const Assignment& a) { return a.name == v.variable; })
        || std::any_of(m.uses.begin(), m.uses.end(), [&](const VarUse& u) {
             return u.name == v.variable
                    && (u.guarded
                        || (u.command >= 0 && static_cast<std::size_t>(u.command) < m.commands.size()
                            && test_command(m.commands[static_cast<std::size_t>(u.command)])));
           })) {
      continue;
    }
    const auto use = std::find_if(m.uses.begin(), m.uses.end(),
                                  [&](const VarUse& u) { return u.batch_shell && u.name == v.variable; });
    if (use == m.uses.end()) {
      continue;
    }
    const bool stops = nounset >= 0 && use->offset > nounset;
    const bool gres = std::string_view(v.variable) == "SLURM_GPUS_PER_NODE" && requests_gpus(m, 0);
    c.add(Severity::warning, "audit.slurm_variable_unset",
          fmt::format("${} is set only when the job asks for {} (sbatch(1), OUTPUT ENVIRONMENT VARIABLES), and this "
                      "one does not: {}",
                      v.variable, v.wanted,
                      stops ? fmt::format("under `set -u` (line {}) bash stops the script here", m.line_of(nounset))
                            : "it expands to nothing here"),
          gres ? fmt::format("use $SLURM_GPUS_ON_NODE, which a --gres=gpu request sets, or ask for #SBATCH "
                             "--gpus-per-node")
               : fmt::format("add #SBATCH {}=N, or write ${{{}:-N}}", v.wanted, v.variable),
          use->offset);
  }
}

} // namespace lg::audit::detail
