// Rendering the sbatch script: a Mustache template (templates/*.sbatch.mustache
// or the user's own) filled from the JobSpec and the composed environment.
// Every value is prepared before it reaches the template: shell-quoted for
// script lines (`*_q`), sbatch-quoted for #SBATCH lines (`*_d`), so templates
// insert them raw with {{{ }}}. docs/templates.md lists every variable.
// Pure: no I/O.
#pragma once

#include "config/job_spec.hpp"
#include "env/environment.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace lg::render {

// Return the sbatch script for `spec` with `environment`, from
// `template_text`. Throws InputError when the template is not valid Mustache
// or names a variable that does not exist, or when a value cannot be written
// safely (a control character in an #SBATCH value other than the job name, a
// comma in a container mount, an invalid variable name).
std::string render_sbatch(const config::JobSpec& spec,
                          const env::Environment& environment,
                          std::string_view template_text);

// Return every variable a template can use, including the fields of list
// items ("env.name"), sorted. The docs test checks each is documented.
std::vector<std::string> template_variable_names();

// Return `name` with every character outside [A-Za-z0-9._+-] replaced by '_'
// (empty becomes "job"). The job name reaches file names through %x, so it
// is made portable rather than quoted.
std::string sanitize_job_name(std::string_view name);

// Return `word` quoted as one inert bash word: shell_quote's single quotes,
// or $'…' (ANSI-C quoting) when it has control characters, so the rendered
// script never has a line that starts with user text. Throws InputError on a
// NUL byte.
std::string script_quote(std::string_view word);

// `word` quoted the same way, except that each "%j" becomes "$SLURM_JOB_ID"
// expanded by the script (an environment variable per job,
// env::Variable::per_job): 'logs/nccl_trace_'"$SLURM_JOB_ID"'_rank_'.
std::string script_quote_per_job(std::string_view word);

// Return `value` written for an #SBATCH line: unchanged when made of safe
// characters, else in double quotes with \, ", ' and # backslash-escaped
// (sbatch's own directive parser, not a shell, reads these lines). Throws
// InputError naming `field` when `value` has a control character (a newline
// would start a new line of the script) or is empty.
std::string directive_quote(std::string_view field, std::string_view value);

} // namespace lg::render
