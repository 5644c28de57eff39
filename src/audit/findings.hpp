// Internal to src/audit: the finding producers audit_text runs, and small
// helpers they share.
#pragma once

#include "audit/audit.hpp"
#include "audit/job_from_script.hpp"
#include "audit/script_model.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace lg::audit::detail {

struct FindingContext
{
  const ScriptModel& model;
  const ScriptJob& job;
  const AuditOptions& options;
  const std::string& path;
  std::vector<AuditFinding>& out;

  // Add a finding at script `offset` (-1: line 1).
  AuditFinding& add(Severity severity, const char* rule, std::string message, std::string fix, int offset);
};

void job_findings(FindingContext& context);      // rules::check on the launch line's JobSpec
void env_findings(FindingContext& context);      // env::compose on the launch environment
void hygiene_findings(FindingContext& context);  // exports, directives, placeholders, output
void launch_findings(FindingContext& context);   // tasks, per-task variables, container env, signal, nodes
void secret_findings(FindingContext& context);   // set -x and tokens
void shell_findings(FindingContext& context);
void unset_variable_findings(FindingContext& context);  // findings_unset_variables.cpp
void no_launch_findings(FindingContext& context);       // no launch read (findings_no_launch.cpp)
void exit_status_findings(FindingContext& context);     // set -e, exit in $(…), $0 (findings_exit_status.cpp)
// Shared readings of shell commands (findings_shell.cpp).
bool words_contain(const Command& command, std::string_view needle);
bool is_set_with(const Command& command, char flag, std::string_view long_name);  // set -e / -o errexit …
bool shebang_errexit(const std::string& text);  // `#!/bin/bash -e` (-xe, -ex …): errexit from the first line
bool positional(const std::string& name);        // $1, $2 …
bool environment_name(const std::string& name);  // set outside the script: SLURM_*, HOME, runtime variables …    // CRLF, unexpanded #SBATCH, pipefail, set -u, order
void word_findings(FindingContext& context);
void blank_findings(FindingContext& context);  // a template's blanks (findings_template_blanks.cpp)
void directive_findings(FindingContext& context);  // the #SBATCH lines (findings_directives.cpp)
void directive_options(FindingContext& context);  // #SBATCH options sbatch does not have (sbatch_options.cpp)
// `accelerate launch … srun python x.py`: report (audit.launcher_program) a
// spawning launcher whose script is another launcher; `words` are the words
// the launch was read from, `as_meant` prefixes the message. True if reported
// (findings_program.cpp).
bool report_launcher_program(FindingContext& c, const Launch& l, const std::vector<Word>& words,
                             const std::string& as_meant);
void late_directive_findings(FindingContext& context);  // #SBATCH after the first command (findings_late_directives.cpp)
void self_reference_findings(FindingContext& context);  // NAME=…:\$NAME, the old value dropped (findings_self_reference.cpp)
// The last command of the pipeline that starts at `command` (findings_steps.cpp).
std::size_t pipeline_end(const ScriptModel& model, std::size_t command);
void step_findings(FindingContext& context);      // launches left running at exit, `srun NAME=v cmd` (findings_steps.cpp)
void nccl_name_findings(FindingContext& context);  // NCCL_* names nothing reads (findings_nccl_names.cpp)
void accelerate_total_findings(FindingContext& context);  // a constant --num_processes (findings_accelerate_total.cpp)
void cpu_findings(FindingContext& context);  // launcher workers on Slurm's one default CPU (findings_cpus.cpp)
void job_status_findings(FindingContext& context);  // a bare `wait` as the job's status (findings_job_status.cpp)
// The job asks Slurm for GPUs: #SBATCH --gres=gpu…, --gpus*, --tres-per-task=gres/gpu… (findings_gpu_request.cpp).
bool requests_gpus(const ScriptModel& model, int component);
// The #SBATCH lines give the job's resources (nodes, tasks, CPUs, memory, GPUs):
// without one the submitter passes them on sbatch's command line (a generated
// or wrapped job), and what the script leaves out may well be given there.
bool resources_in_script(const ScriptModel& model, int component);
void gpu_request_findings(FindingContext& context);  // a GPU launch in a job that asks for no GPU
void visible_devices_findings(FindingContext& context);  // export CUDA_VISIBLE_DEVICES=0,1 in a GPU job
void internal_image_findings(FindingContext& context);  // nvcr.io/nvidian, gitlab-master.nvidia.com images
void slurm_variable_findings(FindingContext& context);  // $SLURM_GPUS_PER_NODE without --gpus-per-node …
void world_size_findings(FindingContext& context);  // WORLD_SIZE exported for another process count
void ssh_rank_findings(FindingContext& context);  // deepspeed --hostfile over pdsh in the batch shell
void self_copy_findings(FindingContext& context);  // cp X X
void step_payload_findings(FindingContext& context);  // srun … \ / cmd; \ / cmd: the ; ends srun
void redirect_directory_findings(FindingContext& context);  // cmd > $JOBDIR/log with $JOBDIR never made
void fixed_host_findings(FindingContext& context);  // --rdzv_endpoint 10.0.0.1:29500 in a multi-node job
void repeated_option_findings(FindingContext& context);  // srun --export=A … --export=B (findings_repeated_options.cpp)
// audit --shellcheck: the curated shellcheck codes in `run` (findings_shellcheck.cpp).
void shellcheck_findings(FindingContext& context, const ShellcheckRun& run);     // words bash reads otherwise: `\ #` in arrays, one-element host arrays, unquoted <…>

// True for placeholder text: <…>, {{…}} (outside templates), __NAME__, your_…
// or YOU_… (at the start of the word or of a part of it), /path/to/…, CHANGEME,
// PYTHON_FILE.py (placeholder_shapes.cpp).
bool placeholder(std::string_view text, bool template_mode);
bool names_its_option(std::string option, std::string_view value);  // --account ACCOUNT
bool generic_option_value(std::string option, std::string_view value);  // -A account_name
// The placeholder inside `text` as written ("<account>", "YOU_TEAM_NAME"), or empty.
std::string placeholder_token(std::string_view text, bool template_mode);
// A run of one letter x in a part of an #SBATCH value: --account=project_xxxx.
bool x_filler(std::string_view text);

// Megatron-DeepSpeed (the deepspeed launcher, --deepspeed, --zero-stage,
// --pp-partition-method, …): its own fork of Megatron's arguments, without
// Megatron-LM's later checks (findings_job.cpp).
bool megatron_deepspeed(const ScriptJob& job);

// True for names the training processes read (CUDA_*, NCCL_*, PYTORCH_*, …).
bool runtime_variable(const std::string& name);

// The byte range of the whole lines holding command `command`, if nothing
// else shares them; (-1, -1) otherwise.
std::pair<int, int> own_lines(const ScriptModel& model, int command);

// Where a line can be inserted before the launch `launch` so that it runs
// exactly when the launch does: the start of the launch's own line (not
// after `;`, `&&` or `|` on its line, not continued from the line before);
// with `top_level`, only when the launch is not inside if/for/while or a
// function either (a line moved there would run in one branch only). -1
// otherwise (then no edit is offered).
int insert_before_launch(const ScriptModel& model, const Launch& launch, bool top_level);

// `text` as a whole non-negative count ("8"), or 0 when it is not one
// (findings_launch.cpp).
int integer(const std::string& text);

// The launcher stage of `l` that starts its own workers, one per GPU
// (torchrun, deepspeed, accelerate launch with several processes per
// machine), or nullptr (findings_launch.cpp).
const LaunchStage* spawning_launcher(const Launch& l);

// The nodes an srun step runs on (0: not known or narrowed).
int srun_step_nodes(const FindingContext& c, const LaunchStage* srun);

// A word before the launch's program that cannot be read (it may hold the
// options a rule looks for); `except_offset` is one word not to count.
bool opaque_launcher_words(const FindingContext& c, const Launch& l, int except_offset = -1);

} // namespace lg::audit::detail
