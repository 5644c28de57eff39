// #SBATCH options sbatch does not have. sbatch parses the directives with
// getopt_long before anything is queued, and an option it does not know stops
// it: the local Slurm 22.05 prints "sbatch: unrecognized option
// '--cpus_per_task=16'" for a long one and "sbatch: invalid option -- 'j'" for
// a short one (`#SBATCH -job_name`), then exits without submitting.
//
// SPANK plugins (pyxis …) add long options, so an unknown long option is
// reported only when it is a near miss of a real one (`--cpus_per_task`,
// `--cpus-per-tsk`): no plugin spells an option that way. Short letters are
// not extended by plugins.
#include "audit/findings.hpp"
#include "util/edit_distance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace lg::audit::detail {

namespace {

// sbatch's long options: those the local Slurm 22.05 sbatch accepts (every
// option-shaped string of its libslurmfull.so, and each string's tails, tried
// as `sbatch --NAME=1 --usage`: 93 names besides abbreviations, among them the
// unlisted --tasks-per-node and --context), those of other releases (old
// ones spelled --mem_bind), and pyxis' container options.
constexpr auto k_sbatch_long = std::to_array<std::string_view>(
  {"account", "acctg-freq", "array", "batch", "bb", "bbf", "begin", "chdir", "cluster-constraint", "clusters",
   "comment", "constraint", "container", "container-id", "context", "contiguous", "core-spec", "cores-per-socket",
   "cpu-freq", "cpus-per-gpu", "cpus-per-task", "deadline", "delay-boot", "dependency", "distribution", "error",
   "exclude", "exclusive", "export", "export-file", "extra", "extra-node-info", "get-user-env", "gid", "gpu-bind",
   "gpu-freq", "gpus", "gpus-per-node", "gpus-per-socket", "gpus-per-task", "gres", "gres-flags", "help", "hint",
   "hold", "ignore-pbs", "input", "job-name", "kill-on-invalid-dep", "licenses", "mail-type", "mail-user", "mcs-label",
   "mem", "mem-bind", "mem_bind", "mem-per-cpu", "mem-per-gpu", "mincpus", "network", "nice", "no-kill", "no-requeue",
   "nodefile", "nodelist", "nodes", "ntasks", "ntasks-per-core", "ntasks-per-gpu", "ntasks-per-node",
   "ntasks-per-socket", "ntasks-per-tres", "oom-kill-step", "open-mode", "output", "overcommit", "oversubscribe",
   "parsable", "partition", "power", "prefer", "priority", "profile", "propagate", "qos", "quiet", "reboot", "requeue",
   "reservation", "resv-ports", "segment", "signal", "sockets-per-node", "spread-job", "spread-segments", "stepmgr",
   "switches", "tasks-per-node", "test-only", "thread-spec", "threads-per-core", "time", "time-min", "tmp", "tres-bind",
   "tres-per-task", "uid", "usage", "use-min-nodes", "verbose", "version", "wait", "wait-all-nodes", "wckey", "workdir",
   "wrap", "x11", "checkpoint", "checkpoint-dir", "cpu-bind",
   // pyxis (NVIDIA/pyxis README, "Usage")
   "container-image", "container-mounts", "container-workdir", "container-name", "container-save",
   "container-mount-home", "no-container-mount-home", "container-remap-root", "no-container-remap-root",
   "container-entrypoint", "no-container-entrypoint", "container-entrypoint-log", "container-writable",
   "container-readonly", "container-env"});

// Letters the local Slurm 22.05 sbatch rejects as `#SBATCH -X 1` ("invalid
// option -- 'X'"); -I, -r and -u, which older releases had or its usage text
// still names, are left out.
constexpr std::string_view k_invalid_short = "fgjlyzEKPRTUXYZ";

// getopt_long takes an exact name or an abbreviation of one.
bool sbatch_accepts(std::string_view name)
{
  return std::any_of(k_sbatch_long.begin(), k_sbatch_long.end(),
                     [name](std::string_view known) { return known.starts_with(name); });
}

// The one real option `name` misspells, or empty: the same with '_' for '-'
// or another case, or one edit away (two for names of 10+ characters).
std::string_view near_miss(const std::string& name)
{
  std::string folded = name;
  std::transform(folded.begin(), folded.end(), folded.begin(),
                 [](unsigned char c) { return c == '_' ? '-' : static_cast<char>(std::tolower(c)); });
  std::string_view found;
  int matches = 0;
  for (std::string_view known : k_sbatch_long) {
    if (folded == known) {
      return known;
    }
    const std::size_t distance = name.size() >= 6 ? lg::edit_distance(folded, known) : 99;
    if (distance == 1 || (distance == 2 && name.size() >= 10)) {
      found = known;
      ++matches;
    }
  }
  return matches == 1 ? found : std::string_view{};
}

}  // namespace

void directive_options(FindingContext& c)
{
  // `#SBATCH -p your partition`, `#SBATCH --job-name my job`: sbatch reads
  // the directive line as words and stops at one that is no option and no
  // option's value (the local Slurm 22.05: "sbatch: error: Invalid directive
  // found in batch script: partition"). Lines holding a {{…}} or <…>
  // placeholder are the placeholder's finding.
  for (const auto& [offset, word] : c.model.directive_strays) {
    const auto begin = c.model.text.rfind('\n', static_cast<std::size_t>(offset));
    const auto end = c.model.text.find('\n', static_cast<std::size_t>(offset));
    const std::string line = c.model.text.substr(begin == std::string::npos ? 0 : begin + 1,
                                                 end == std::string::npos ? std::string::npos
                                                                          : end - (begin == std::string::npos ? 0 : begin + 1));
    if (c.options.template_mode || line.find('{') != std::string::npos || line.find('<') != std::string::npos) {
      continue;
    }
    c.add(Severity::error, "audit.directive_option",
          fmt::format("`{}` in this #SBATCH line is neither an option nor an option's value: sbatch stops with "
                      "\"sbatch: error: Invalid directive found in batch script: {}\" and submits nothing",
                      word, word),
          "quote a value with spaces (--job-name=\"my job\"), or fill in the placeholder", offset);
  }
  for (const auto& d : c.model.directives) {
    if (d.ignored) {
      continue;
    }
    if (d.spelled.starts_with("--")) {
      if (d.name.empty() || sbatch_accepts(d.name)) {
        continue;
      }
      const std::string_view meant = near_miss(d.name);
      if (meant.empty()) {
        continue;  // perhaps a SPANK plugin's option
      }
      c.add(Severity::error, "audit.directive_option",
            fmt::format("#SBATCH --{} is not an sbatch option: sbatch stops with \"sbatch: unrecognized option "
                        "'--{}{}'\" and submits nothing",
                        d.name, d.name, d.has_value ? "=" + d.value : ""),
            fmt::format("write --{}", meant), d.offset);
    } else if (d.spelled.size() == 2 && k_invalid_short.find(d.spelled[1]) != std::string_view::npos) {
      c.add(Severity::error, "audit.directive_option",
            fmt::format("#SBATCH {}{}: sbatch has no option -{} and stops with \"sbatch: invalid option -- '{}'\", "
                        "submitting nothing",
                        d.spelled, d.value, d.spelled[1], d.spelled[1]),
            d.spelled[1] == 'j' ? std::string("a job name is -J NAME or --job-name=NAME")
                                : std::string("see `sbatch --help` for the option meant"),
            d.offset);
    }
  }
}

}  // namespace lg::audit::detail
