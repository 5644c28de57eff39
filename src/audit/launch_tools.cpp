// Option grammars of the launchers (launch_tools.hpp). Only the options that
// take no value need listing: any other option consumes the next word,
// unless that word is a program (looks_like_program).
#include "audit/launch_tools.hpp"

#include "audit/launch.hpp"

#include <array>
#include <string_view>

namespace lg::audit::detail {

const OptionGrammar& srun_grammar()
{
  static const OptionGrammar k_grammar{
    {"exclusive", "overlap", "label", "unbuffered", "no-kill", "container-writable",
     "container-readonly", "container-mount-home", "no-container-mount-home", "container-remap-root",
     "no-container-remap-root", "container-entrypoint", "no-container-entrypoint",
     "container-entrypoint-log", "quiet", "verbose", "whole", "spread-job", "multi-prog", "pty",
     "disable-status", "test-only", "use-min-nodes", "contiguous", "exact", "no-allocate",
     "preserve-env", "reboot", "oversubscribe", "overcommit", "requeue", "no-requeue",
     "external-launcher", "help", "usage", "kill-on-bad-exit", "propagate", "container-save"},
    "luvQksXZEhHO",
    {},
    false};
  return k_grammar;
}

const OptionGrammar& mpirun_grammar()
{
  static const OptionGrammar k_grammar{
    {"allow-run-as-root", "oversubscribe", "tag-output", "report-bindings", "timestamp-output",
     "display-map", "noprefix", "q", "quiet", "v", "verbose", "bind-to-core", "bind-to-socket",
     "nooversubscribe", "use-hwthread-cpus", "enable-recovery", "merge-stderr-to-stdout"},
    "qv",
    {"mca", "gmca", "mca-param"},
    true};
  return k_grammar;
}

const OptionGrammar& torchrun_grammar()
{
  static const OptionGrammar k_grammar{
    {"standalone", "no-python", "module", "m", "run-path", "use-env", "virtual-local-rank"},
    "m",
    {},
    false};
  return k_grammar;
}

const OptionGrammar& python_grammar()
{
  static const OptionGrammar k_grammar{{}, "uOBEsSIbqvxdiP", {}, false};
  return k_grammar;
}

const OptionGrammar& uv_grammar()
{
  static const OptionGrammar k_grammar{
    {"no-sync", "frozen", "locked", "active", "isolated", "no-project", "all-extras", "no-dev",
     "offline", "quiet", "verbose", "native-tls", "no-cache", "no-config", "exact", "no-editable",
     "all-groups", "only-dev", "no-default-groups", "no-env-file", "no-build", "refresh",
     "compile-bytecode", "no-progress", "no-python-downloads", "managed-python", "system", "script",
     "gui-script"},
    "qv",
    {},
    false};
  return k_grammar;
}

const OptionGrammar& deepspeed_grammar()
{
  static const OptionGrammar k_grammar{
    {"no-local-rank", "force-multi", "bind-cores-to-rank", "no-python", "module", "no-ssh-check",
     "save-pid", "elastic-training", "enable-each-rank-log", "no-ssh", "autotuning"},
    "",
    {},
    false};
  return k_grammar;
}

const OptionGrammar& generic_grammar()
{
  static const OptionGrammar k_grammar{{}, "", {}, false, true};
  return k_grammar;
}

// Apptainer/Singularity `exec`/`run` options that take no value (apptainer
// docs, "Command Line Interface: apptainer exec"); -B/--bind, --env,
// --home, --overlay, --pwd, … take one.
const OptionGrammar& apptainer_grammar()
{
  static const OptionGrammar k_grammar{
    {"nv", "nvccli", "rocm", "cleanenv", "containall", "contain", "writable", "writable-tmpfs", "no-home",
     "fakeroot", "userns", "compat", "no-init", "no-privs", "no-https", "ipc", "pid", "net", "disable-cache",
     "no-nv", "keep-privs", "allow-setuid", "boot", "unsquash", "no-eval", "no-umask", "sharens", "no-pid",
     "uts", "silent", "quiet", "debug", "verbose"},
    "ecCipfusqdv",
    {},
    false};
  return k_grammar;
}

// `docker run` / `podman run` options that take no value (Docker docs,
// "docker container run"); the others (-v, -e, --gpus, --name, …) take one.
const OptionGrammar& docker_grammar()
{
  static const OptionGrammar k_grammar{
    {"rm", "privileged", "init", "read-only", "detach", "interactive", "tty", "publish-all", "no-healthcheck",
     "oom-kill-disable", "sig-proxy", "disable-content-trust"},
    "ditP",
    {},
    false};
  return k_grammar;
}

const OptionGrammar& numactl_grammar()
{
  static const OptionGrammar k_grammar{{"localalloc", "hardware", "show", "all"}, "lHsa", {}, false};
  return k_grammar;
}

bool looks_like_program(const std::string& word)
{
  static constexpr std::array<std::string_view, 18> k_programs = {
    "python",    "python3",    "torchrun", "srun",       "uv",        "bash",        "sh",
    "deepspeed", "numactl",    "env",      "nsys",       "apptainer", "singularity", "singularity_wrapper",
    "mpirun",    "accelerate", "ncu",      "ft_launcher"};
  const std::string base = basename_of(word);
  for (auto name : k_programs) {
    if (base == name) {
      return true;
    }
  }
  if (base.starts_with("python3.")) {
    return true;
  }
  return base.ends_with(".py") || base.ends_with(".sh");
}

std::string normalise_option(std::string name)
{
  for (char& c : name) {
    if (c == '_') {
      c = '-';
    }
  }
  return name;
}

} // namespace lg::audit::detail
