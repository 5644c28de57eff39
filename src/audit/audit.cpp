// audit_text (audit.hpp): read, build the job, run the producers, sort.
#include "audit/audit.hpp"

#include "audit/findings.hpp"
#include "audit/submitted_script.hpp"
#include "audit/script_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace lg::audit {

namespace detail {

AuditFinding& FindingContext::add(Severity severity, const char* rule, std::string message, std::string fix,
                                  int offset)
{
  const Position p = model.position(offset);
  AuditFinding finding;
  finding.diagnostic = Diagnostic{severity, rule, std::move(message), std::move(fix),
                                  SourceLocation{path, p.line == 0 ? 1 : p.line, p.column}};
  out.push_back(std::move(finding));
  return out.back();
}

bool runtime_variable(const std::string& name)
{
  // HF_: only the variables huggingface_hub/datasets read (HF_HOME,
  // HF_HUB_*, HF_DATASETS_*), not a script's own HF_CONFIG or HF_MODEL.
  // WANDB_: the wandb library reads WANDB_MODE, WANDB_PROJECT … from the
  // environment of the training process (docs.wandb.ai, "Environment variables").
  static constexpr std::array<std::string_view, 20> k_prefixes = {
    "CUDA_", "NCCL_", "PYTORCH_", "TORCH_", "NVTE_", "OMP_", "HF_HUB_", "HF_DATASETS_", "TRANSFORMERS_", "TRITON_",
    "UCX_", "FI_", "GLOO_", "TOKENIZERS_", "CUBLAS_", "NVLINK_", "NUM_OF_", "CUDNN", "MASTER_", "WANDB_"};
  for (auto prefix : k_prefixes) {
    if (name.starts_with(prefix)) {
      return true;
    }
  }
  return name == "WORLD_SIZE" || name == "PYTHONPATH" || name == "USE_MNNVL" || name == "LD_LIBRARY_PATH"
         || name == "HF_HOME" || name == "HF_TOKEN" || name == "HF_ENDPOINT";
}

std::pair<int, int> own_lines(const ScriptModel& model, int command)
{
  if (command < 0 || static_cast<std::size_t>(command) >= model.commands.size()) {
    return {-1, -1};
  }
  const Command& c = model.commands[static_cast<std::size_t>(command)];
  if (c.begin < 0 || c.end <= c.begin) {
    return {-1, -1};
  }
  const int begin = model.line_begin(model.line_of(c.begin));
  const std::string& t = model.text;
  for (int i = begin; i < c.begin; ++i) {
    if (t[static_cast<std::size_t>(i)] != ' ' && t[static_cast<std::size_t>(i)] != '\t') {
      return {-1, -1};
    }
  }
  auto i = static_cast<std::size_t>(c.end);
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == ';' || t[i] == '\r')) {
    ++i;
  }
  if (i < t.size() && t[i] != '\n' && t[i] != '#') {
    return {-1, -1};
  }
  const auto eol = t.find('\n', i);
  return {begin, eol == std::string::npos ? static_cast<int>(t.size()) : static_cast<int>(eol) + 1};
}

int insert_before_launch(const ScriptModel& model, const Launch& launch, bool top_level)
{
  if (launch.command < 0 || static_cast<std::size_t>(launch.command) >= model.commands.size()) {
    return -1;
  }
  const Command& c = model.commands[static_cast<std::size_t>(launch.command)];
  if ((top_level && c.depth != 0) || c.begin < 0) {
    return -1;
  }
  const int line = model.line_begin(model.line_of(c.begin));
  const std::string& t = model.text;
  for (int i = line; i < c.begin; ++i) {
    if (t[static_cast<std::size_t>(i)] != ' ' && t[static_cast<std::size_t>(i)] != '\t') {
      return -1;  // another command (or a keyword) shares the line
    }
  }
  // The line before must not continue into this one (a backslash at its end).
  if (line >= 2) {
    auto j = static_cast<std::size_t>(line - 1);  // its newline
    if (j > 0 && t[j - 1] == '\r') {
      --j;
    }
    if (j > 0 && t[j - 1] == '\\') {
      return -1;
    }
  }
  return line;
}

} // namespace detail

namespace {

int severity_rank(Severity s)
{
  return s == Severity::error ? 0 : s == Severity::warning ? 1 : 2;
}

// The program the first line names when it is not a Bourne shell (csh,
// tcsh, fish, Python, Perl, …), or "". slurmd executes the batch script,
// so the kernel runs it with its #! interpreter (execve(2)); sbatch reads
// only the #SBATCH lines, whatever the language. For such a script bash's
// reading says nothing: `bash -n` fails on tcsh's `endif`, and its
// `setenv`, `if (…) then` are not the commands audit reads.
std::string foreign_interpreter(const std::string& text)
{
  if (!text.starts_with("#!")) {
    return "";
  }
  std::string line = text.substr(2, text.find('\n') == std::string::npos ? std::string::npos : text.find('\n') - 2);
  std::vector<std::string> words;
  for (std::size_t i = 0; i < line.size();) {
    const auto begin = line.find_first_not_of(" \t\r", i);
    if (begin == std::string::npos) {
      break;
    }
    const auto end = std::min(line.find_first_of(" \t\r", begin), line.size());
    words.push_back(line.substr(begin, end - begin));
    i = end;
  }
  std::size_t k = 0;
  auto base = [&](std::size_t i) { return words[i].substr(words[i].rfind('/') + 1); };
  if (!words.empty() && base(0) == "env") {  // #!/usr/bin/env [-S] tcsh
    k = 1;
    while (k < words.size() && words[k].starts_with("-")) {
      ++k;
    }
  }
  if (k >= words.size()) {
    return "";
  }
  const std::string program = base(k);
  static constexpr std::array<std::string_view, 9> k_foreign = {"csh",     "tcsh",  "fish", "perl", "ruby",
                                                                "Rscript", "julia", "node", "pwsh"};
  const bool foreign = program.starts_with("python")
                       || std::find(k_foreign.begin(), k_foreign.end(), program) != k_foreign.end();
  return foreign ? program : "";
}

// csh/tcsh `setenv NAME VALUE` ("Sets the value of environment variable
// name to value", tcsh(1), Builtin commands) is the length of bash's `export
// NAME=VALUE`: each such line with one blank after the name is read as that
// export, at the same offsets, so the launch's environment holds it. Other
// lines are left as they are.
std::string csh_exports(std::string text)
{
  std::size_t at = 0;
  while (at < text.size()) {
    const auto eol = std::min(text.find('\n', at), text.size());
    const auto first = text.find_first_not_of(" \t", at);
    if (first != std::string::npos && first < eol && text.compare(first, 7, "setenv ") == 0) {
      const auto name = first + 7;
      const auto blank = text.find(' ', name);
      const bool one_blank = blank != std::string::npos && blank > name && blank + 1 < eol && text[blank + 1] != ' '
                             && text[blank + 1] != '\t';
      if (one_blank && text.find('\t', name) >= blank) {
        text.replace(first, 6, "export");
        text[blank] = '=';
      }
    }
    at = eol + 1;
  }
  return text;
}

bool csh_family(const std::string& program)
{
  return program == "csh" || program == "tcsh";
}

// With a foreign interpreter only the #SBATCH lines mean what audit reads:
// the directive rules, and placeholders and --output directories on an
// #SBATCH line.
bool kept_for_foreign_interpreter(const AuditFinding& f, const ScriptModel& model, bool csh)
{
  const std::string& rule = f.diagnostic.rule;
  const int at_line = f.diagnostic.where ? f.diagnostic.where->line : 0;
  if (csh && rule == "env.debug_setting" && at_line > 0) {
    // A debugging switch a csh `setenv` line sets (read as an export).
    const auto begin = static_cast<std::size_t>(model.line_begin(at_line));
    const auto first = model.text.find_first_not_of(" \t", begin);
    return first != std::string::npos && model.text.compare(first, 7, "export ") == 0;
  }
  if (rule.starts_with("audit.directive_") || rule == "audit.crlf" || rule == "audit.shebang_argument") {
    return true;
  }
  const int line = f.diagnostic.where ? f.diagnostic.where->line : 0;
  const bool directive_line =
    line > 0 && model.text.compare(static_cast<std::size_t>(model.line_begin(line)), 7, "#SBATCH") == 0;
  return directive_line && (rule == "audit.placeholder" || rule == "audit.output_directory");
}

// "line 2", "lines 3, 5", "lines 7-8" in a message about the body, as
// lines of the outer script (`by` lines further down).
std::string shift_lines(const std::string& text, int by)
{
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const bool line = text.compare(i, 5, "line ") == 0;
    const bool lines = text.compare(i, 6, "lines ") == 0;
    if (!line && !lines) {
      out += text[i++];
      continue;
    }
    const std::size_t word = lines ? 6 : 5;
    out += text.substr(i, word);
    i += word;
    // Numbers, and the ", " / "-" / " and " between them.
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0) {
      std::size_t end = i;
      while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])) != 0) {
        ++end;
      }
      out += std::to_string(std::stoi(text.substr(i, end - i)) + by);
      i = end;
      for (const char* sep : {", ", "-", " and "}) {
        const std::size_t n = std::string_view(sep).size();
        if (text.compare(i, n, sep) == 0 && i + n < text.size()
            && std::isdigit(static_cast<unsigned char>(text[i + n])) != 0) {
          out += sep;
          i += n;
          break;
        }
      }
    }
  }
  return out;
}

// `sbatch <<EOF … EOF`: the body is audited as the job script it is, its
// findings placed on the outer lines and said to be the submitted job's.
// Left to the outer audit: per-task variables (in an unquoted body the
// submitting shell expands them, which the outer audit reads), a finding the
// outer audit made on the same line, and --output directories (the
// submitting script may make them before sbatch).
// When the body holds a launch, the outer "no launch read" advice goes.
void submitted_findings(const ScriptModel& model, const std::string& path, const AuditOptions& options,
                        std::vector<AuditFinding>& findings)
{
  for (const detail::SubmittedScript& sub : detail::submitted_scripts(model)) {
    AuditOptions inner = options;
    inner.submitted_depth = options.submitted_depth + 1;
    inner.directory_exists = nullptr;
    inner.shellcheck = nullptr;
    const AuditResult body = audit_text(sub.text, path, inner);
    bool launch = true;
    std::vector<AuditFinding> kept;
    for (AuditFinding f : body.findings) {
      const std::string& rule = f.diagnostic.rule;
      if (rule == "audit.no_launch" || rule == "audit.no_shebang") {
        launch = launch && rule != "audit.no_launch";
        continue;
      }
      if (rule == "audit.per_task_variable" || !f.diagnostic.where) {
        continue;
      }
      const int line = f.diagnostic.where->line + sub.first_line - 1;
      const bool repeated = std::any_of(findings.begin(), findings.end(), [&](const AuditFinding& o) {
        return o.diagnostic.rule == rule && o.diagnostic.where && o.diagnostic.where->line == line;
      });
      if (repeated) {
        continue;
      }
      f.diagnostic.where->line = line;
      f.diagnostic.message = fmt::format("in the job script sbatch reads from the heredoc on line {}: {}",
                                         model.line_of(sub.sbatch_offset),
                                         shift_lines(f.diagnostic.message, sub.first_line - 1));
      f.diagnostic.fix = shift_lines(f.diagnostic.fix, sub.first_line - 1);
      f.edits.clear();
      kept.push_back(std::move(f));
    }
    if (launch) {
      std::erase_if(findings, [](const AuditFinding& f) { return f.diagnostic.rule == "audit.no_launch"; });
    }
    findings.insert(findings.end(), kept.begin(), kept.end());
  }
}

} // namespace

AuditResult audit_text(const std::string& text, const std::string& path, const AuditOptions& options)
{
  ReadOptions read;
  read.template_mode = options.template_mode;
  const std::string foreign = foreign_interpreter(text);
  const ScriptModel model = read_script(csh_family(foreign) ? csh_exports(text) : text, read);
  const ScriptJob job = job_from_script(model, options.gpu, path);
  AuditResult result;
  result.path = path;
  detail::FindingContext context{model, job, options, path, result.findings};
  detail::job_findings(context);
  detail::env_findings(context);
  detail::hygiene_findings(context);
  detail::launch_findings(context);
  detail::step_findings(context);
  detail::nccl_name_findings(context);
  detail::job_status_findings(context);
  detail::cpu_findings(context);
  detail::gpu_request_findings(context);
  detail::repeated_option_findings(context);
  detail::visible_devices_findings(context);
  detail::internal_image_findings(context);
  detail::slurm_variable_findings(context);
  detail::world_size_findings(context);
  detail::ssh_rank_findings(context);
  detail::self_copy_findings(context);
  detail::step_payload_findings(context);
  detail::redirect_directory_findings(context);
  detail::fixed_host_findings(context);
  detail::accelerate_total_findings(context);
  detail::secret_findings(context);
  detail::shell_findings(context);
  if (!foreign.empty()) {
    std::erase_if(result.findings,
                  [&](const AuditFinding& f) { return !kept_for_foreign_interpreter(f, model, csh_family(foreign)); });
    context.add(Severity::advice, "audit.foreign_shell",
                fmt::format("the first line runs this script with {}, not a Bourne shell: audit reads bash, so only "
                            "its #SBATCH lines{} were judged (not its launch line, environment or syntax)",
                            foreign, csh_family(foreign) ? " and the debugging switches its setenv lines set" : ""),
                "check the launch by hand, or audit a bash version of it", 0);
  }
  if (options.parse_error && !options.template_mode && foreign.empty()) {
    if (const auto error = options.parse_error(text)) {
      const int offset = model.line_begin(error->first);
      // `… <cache_dir>` at a line end: the placeholder's redirection is the
      // syntax error, reported once, by the placeholder finding.
      const auto cause = std::find_if(result.findings.begin(), result.findings.end(), [&](const AuditFinding& f) {
        return f.diagnostic.rule == "audit.placeholder" && f.diagnostic.where
               && f.diagnostic.where->line == error->first
               && f.diagnostic.message.find("redirections") != std::string::npos;
      });
      if (cause != result.findings.end()) {
        cause->diagnostic.message +=
          fmt::format("; here bash cannot parse the script at all ({}), so it stops on this line", error->second);
      } else {
        // bash reads and runs one command at a time: what comes before the
        // error runs (round 26's mmdet job trained 24 hours, then stopped at
        // line 51), and the job ends there.
        int ran = -1;
        for (const auto& l : model.launches) {
          if (l.command >= 0 && model.commands[static_cast<std::size_t>(l.command)].begin < offset) {
            ran = model.commands[static_cast<std::size_t>(l.command)].begin;
          }
        }
        context.add(Severity::error, "audit.parse_error",
                    fmt::format("bash cannot parse the script: {}", error->second),
                    ran < 0 ? std::string("correct the syntax (`bash -n SCRIPT` shows the same error); sbatch "
                                          "accepts the script and the job fails at once")
                            : fmt::format("correct the syntax (`bash -n SCRIPT` shows the same error); bash runs the "
                                          "commands before line {} (the launch on line {} among them) and stops "
                                          "there, so nothing after it runs",
                                          error->first, model.line_of(ran)),
                    offset < static_cast<int>(text.size()) ? offset : -1);
      }
      // Bash stops at the error: that no launch line was read follows from
      // it and is not a second finding.
      std::erase_if(result.findings, [](const AuditFinding& f) {
        return f.diagnostic.rule == "audit.no_launch" && f.diagnostic.message.starts_with("no training launch line");
      });
    }
  }
  if (options.shellcheck && !options.template_mode && foreign.empty()) {
    detail::shellcheck_findings(context, options.shellcheck(text));
  }
  if (options.submitted_depth == 0 && foreign.empty()) {
    submitted_findings(model, path, options, result.findings);
  }
  std::stable_sort(result.findings.begin(), result.findings.end(), [](const AuditFinding& a, const AuditFinding& b) {
    const int la = a.diagnostic.where ? a.diagnostic.where->line : 0;
    const int lb = b.diagnostic.where ? b.diagnostic.where->line : 0;
    if (la != lb) {
      return la < lb;
    }
    return severity_rank(a.diagnostic.severity) < severity_rank(b.diagnostic.severity);
  });
  const bool crlf = std::any_of(result.findings.begin(), result.findings.end(),
                                [](const AuditFinding& f) { return f.diagnostic.rule == "audit.crlf"; });
  if (crlf) {
    // Offsets of other edits assume bash reads the lines as written, which
    // it does not on a CRLF script: convert the line ends first, alone.
    for (auto& finding : result.findings) {
      if (finding.diagnostic.rule != "audit.crlf") {
        finding.edits.clear();
      }
    }
  }
  result.unknown.assign(job.unknown.begin(), job.unknown.end());
  return result;
}

const std::vector<AuditRuleInfo>& audit_rules()
{
  static const std::vector<AuditRuleInfo> k_rules = {
    {"audit.export_after_launch", Severity::warning, "a runtime variable is exported after the launch line"},
    {"audit.not_exported", Severity::warning, "a runtime variable is assigned but never exported"},
    {"audit.missing_variable", Severity::error, "a variable Megatron requires is not set before the launch line"},
    {"audit.per_task_variable", Severity::error, "a per-task Slurm variable is expanded once, on the batch host"},
    {"audit.torchrun_tasks_per_node", Severity::error, "torchrun under srun with more than one task per node"},
    {"audit.accelerate_machine_rank", Severity::error,
     "accelerate launch on several nodes with no --machine_rank: every node is machine 0"},
    {"audit.srun_without_rank", Severity::error,
     "srun starts several tasks of a Megatron program itself and nothing sets RANK: every task is rank 0"},
    {"audit.torchrun_node_rank", Severity::error,
     "torchrun on several nodes (or a caller's node count) with no --node_rank: every node is node 0"},
    {"audit.trainer_nodes", Severity::error,
     "trainer.num_nodes / trainer.devices differ from the srun step's nodes / tasks per node: Lightning stops"},
    {"audit.exit_duration", Severity::warning,
     "--exit-duration-in-mins not below #SBATCH --time: Slurm ends the job before Megatron's timed exit and save"},
    {"audit.save_without_load", Severity::warning,
     "Megatron --save with no --load: a rerun starts again at iteration 0"},
    {"audit.escaped_self_reference", Severity::warning,
     "NAME=DIR:\\$NAME: NAME gets the text $NAME, and its old value is lost"},
    {"audit.array_pattern", Severity::warning,
     "#SBATCH --output/--error uses %a in a job that is not an array: Slurm writes 4294967294 there"},
    {"audit.launcher_cpus", Severity::warning,
     "a launcher starts several workers per node on Slurm's default of one CPU per task"},
    {"audit.unset_variable", Severity::warning,
     "a variable the launch uses is never set, in a script that sets the others"},
    {"audit.omp_threads", Severity::warning,
     "OMP_NUM_THREADS as large as the task's CPUs for each of several spawned workers"},
    {"audit.data_loader_cpus", Severity::advice,
     "a Megatron process and its data loader workers on fewer CPUs than processes"},
    {"audit.empty_then_exit", Severity::warning,
     "a variable set empty, then tested with -z and exit: the job always stops there"},
    {"audit.accelerate_total", Severity::warning,
     "accelerate --num_processes (a total) is a constant while --num_machines follows the allocation"},
    {"audit.unused_setting", Severity::advice,
     "a training setting (ZERO_STAGE=3, TP=4 …) is assigned and never used"},
    {"audit.empty_source", Severity::warning,
     "`source` with no file (`source #path`): nothing is sourced"},
    {"audit.errexit_status", Severity::warning,
     "set -e, then a launch and `rc=$?`: the status line only ever sees a success"},
    {"audit.exit_in_substitution", Severity::warning,
     "a function's exit guard called inside $(…): it ends the subshell, not the script"},
    {"audit.script_directory", Severity::warning,
     "dirname $0 / BASH_SOURCE in a batch script: sbatch runs a copy from the spool directory"},
    {"audit.wait_status", Severity::warning,
     "the script ends with a bare `wait` after background steps: the job is COMPLETED whatever they exit with"},
    {"audit.nccl_ib_disabled", Severity::warning,
     "NCCL_IB_DISABLE=1 next to NCCL_IB_* settings on several nodes: the IB settings are dead, traffic goes over TCP"},
    {"audit.nccl_name_unread", Severity::advice,
     "an NCCL_* name no NCCL release and no PyTorch NCCL process group reads: setting it changes nothing"},
    {"audit.step_background", Severity::warning,
     "srun bash -c '… &': the step's shell exits at once and Slurm kills what it started"},
    {"audit.docker_network", Severity::warning,
     "docker run of a distributed launcher on several nodes without --network=host: peers cannot reach it"},
    {"audit.option_repeated", Severity::advice,
     "an srun or launcher option given twice with different values: the last counts (srun --export: a warning)"},
    {"audit.visible_devices_fixed", Severity::advice,
     "CUDA_VISIBLE_DEVICES set to a fixed list in a job Slurm gives GPUs (a warning when the count differs)"},
    {"audit.internal_image", Severity::warning,
     "a container image only NVIDIA's network can pull (nvcr.io/nvidian, gitlab-master.nvidia.com)"},
    {"audit.slurm_variable_unset", Severity::warning,
     "a SLURM_* variable Slurm sets only for an option the job does not give ($SLURM_GPUS_PER_NODE without --gpus-per-node)"},
    {"audit.world_size_mismatch", Severity::warning,
     "WORLD_SIZE exported for another number of processes than the launch starts (an error for Megatron)"},
    {"audit.ranks_over_ssh", Severity::advice,
     "deepspeed --hostfile in the batch shell starts the other nodes' ranks over pdsh/ssh, outside Slurm"},
    {"audit.self_copy", Severity::warning, "cp/mv/rsync with the same source and destination: it fails"},
    {"audit.step_payload_split", Severity::warning,
     "`srun … \\` then `cmd; \\`: the ; ends srun, the continued lines run in the batch shell"},
    {"audit.redirect_directory", Severity::warning,
     "a redirection into a directory named after the job's ID that nothing in the script creates"},
    {"audit.fixed_rendezvous_host", Severity::warning,
     "a literal IP as the rendezvous/master address of a multi-node job whose nodes Slurm picks"},
    {"audit.trailing_status", Severity::advice,
     "only echo/date … after the training launch without set -e: a failed training ends COMPLETED"},
    {"audit.no_gpu_request", Severity::warning,
     "a GPU launch in a job that asks Slurm for no GPU (no --gres=gpu, --gpus*, --exclusive): its tasks get none"},
    {"audit.docker_all_gpus", Severity::warning,
     "docker run --gpus all in a job that asks for fewer GPUs than a node has"},
    {"audit.docker_gpus", Severity::warning,
     "docker run in a GPU job without --gpus (or the NVIDIA runtime): the container sees no GPU"},
    {"audit.container_cleanenv", Severity::warning,
     "apptainer/singularity exec --cleanenv (or --containall): the batch shell's exports do not reach the program"},
    {"audit.container_mounts", Severity::error,
     "a pyxis --container-mounts entry with a path where its mount flags go (a missing ',')"},
    {"audit.trap_deferred", Severity::warning,
     "a trap for the #SBATCH --signal=B: signal while the launch runs in the foreground: bash runs it too late"},
    {"audit.single_host_launch", Severity::error,
     "a multi-node job runs torchrun without srun: only the batch host starts it"},
    {"audit.container_env", Severity::advice, "composed variables missing from --container-env"},
    {"audit.signal", Severity::warning, "--signal missing, or not the signal the trainer handles"},
    {"audit.xtrace_secret", Severity::warning, "set -x is on where a secret is assigned or used"},
    {"audit.secret_in_script", Severity::error, "a token or password is written into the script"},
    {"audit.placeholder", Severity::error, "a leftover placeholder (<…>, {{…}}, your_…, /path/to/…)"},
    {"audit.nodes_duplicated", Severity::error, "the node count is repeated in the launcher"},
    {"audit.gpus_mismatch", Severity::error, "processes per node do not match the GPUs per node"},
    {"audit.output_directory", Severity::warning, "--output/--error into a directory that does not exist"},
    {"audit.directive_repeated", Severity::advice,
     "a single-valued #SBATCH option set twice with different values: the last wins"},
    {"audit.directive_ignored", Severity::warning,
     "#SBATCH after the first command is ignored by sbatch (an error when the job loses its nodes or GPUs)"},
    {"audit.directive_unread", Severity::warning,
     "an indented, '!'-prefixed or misspelled #SBATCH line, which sbatch does not read"},
    {"audit.megatron_args", Severity::error, "a Megatron-LM argument on the launch line is malformed"},
    {"audit.memory_unknown", Severity::advice,
     "memory not judged: values unknown, or flags the estimator does not model"},
    {"audit.crlf", Severity::error, "Windows (CRLF) line ends"},
    {"audit.directive_unexpanded", Severity::error,
     "an #SBATCH value holds $VAR or $(…), which sbatch does not expand"},
    {"audit.directive_value", Severity::error,
     "an #SBATCH count, time or memory holds a word sbatch rejects (--nodes=NUM_NODES)"},
    {"audit.directive_option", Severity::error,
     "an #SBATCH option sbatch does not have (--cpus_per_task, -j): nothing is submitted"},
    {"audit.background_launch", Severity::error,
     "the launch runs in the background and nothing waits: the job ends at once"},
    {"audit.docker_tty", Severity::error,
     "`docker run -it` in a batch job: no terminal, docker refuses to start (\"the input device is not a TTY\")"},
    {"audit.step_assignment", Severity::error, "`srun NAME=v cmd`: srun runs \"NAME=v\" as the program"},
    {"audit.pipe_status", Severity::warning, "the launch line is piped without pipefail: a failed run ends COMPLETED"},
    {"audit.sbatch_input_variable", Severity::warning,
     "an SBATCH_* input variable read inside the job, where it is unset"},
    {"audit.other_scheduler_variable", Severity::warning,
     "a variable another batch system sets (NHOSTS, PBS_*, LSB_*), unset in a Slurm job"},
    {"audit.shell_mismatch", Severity::warning,
     "#!/bin/sh with bash syntax: Slurm runs the interpreter the first line names"},
    {"audit.torchrun_default_nnodes", Severity::error,
     "srun starts torchrun on several nodes without --nnodes (default 1:1)"},
    {"audit.torchrun_local_rendezvous", Severity::error,
     "torchrun on several nodes with no rendezvous address: each node meets itself on 127.0.0.1"},
    {"audit.deepspeed_without_hostfile", Severity::error,
     "srun starts deepspeed on several nodes with no hostfile: each node trains alone"},
    {"audit.hostfile_mismatch", Severity::warning,
     "deepspeed --hostfile names another file than the one the script writes its nodes to"},
    {"audit.torchrun_python", Severity::error, "torchrun … python train.py: torchrun runs `python` as the script"},
    {"audit.launcher_program", Severity::error,
     "accelerate launch/torchrun/deepspeed … srun …: a launcher given another launcher as its Python script"},
    {"audit.module_name", Severity::error, "python/torchrun -m with a file name (pkg.train.py): not a module"},
    {"audit.nounset_positional", Severity::warning, "set -u with $1…: sbatch passes no arguments by default"},
    {"audit.use_before_assignment", Severity::warning, "a variable used above its first assignment"},
    {"audit.prefix_assignment", Severity::warning,
     "variables set in front of cd/echo/true only: nothing after it sees them"},
    {"audit.no_launch", Severity::advice, "no training launch line could be read"},
    {"audit.conda_printed", Severity::warning,
     "`conda shell.bash activate ENV` run bare: it prints the activation and changes nothing"},
    {"audit.conda_uninitialised", Severity::warning,
     "`conda activate` with no conda shell setup before it: conda refuses, the job keeps the submitting environment"},
    {"audit.parse_error", Severity::error, "bash cannot parse the script"},
    {"audit.foreign_shell", Severity::advice,
     "the #! line names a non-Bourne interpreter (csh, tcsh, Python …): only the #SBATCH lines are judged"},
    {"audit.array_comment", Severity::error, "a `\\ #` comment inside an array: its words become elements"},
    {"audit.comment_continuation", Severity::error,
     "a `\\ #` comment in a command line: its words are arguments, the next lines run as commands"},
    {"audit.space_after_backslash", Severity::error,
     "`\\ ` at a line end: the backslash quotes the space, the command ends, the next line runs alone"},
    {"audit.test_redirect", Severity::warning,
     "`>` or `<` inside [ … ]: a redirection that creates a file, not a comparison"},
    {"audit.invalid_name", Severity::warning,
     "export/declare of a word that is not a variable name: bash refuses it, nothing is set"},
    {"audit.empty_option_value", Severity::warning,
     "--opt $VAR with VAR empty and unquoted: the option takes the next word as its value"},
    {"audit.assignment_space", Severity::error,
     "`NAME= 6379`: a space after '=': the value runs as a command, NAME stays unset"},
    {"audit.no_shebang", Severity::error,
     "a script with #SBATCH lines whose first bytes are not #!: sbatch refuses it"},
    {"audit.typographic_dash", Severity::error,
     "a command word that starts with a typographic dash (—-config_file): no launcher reads it as an option"},
    {"audit.shebang_argument", Severity::error,
     "#!/bin/sh –l with a typographic dash: the interpreter takes the word for the script file"},
    {"audit.empty_quoted_word", Severity::warning,
     "\"$VAR\" among srun's options with VAR empty: srun runs \"\" as the program"},
    {"audit.host_array_one_element", Severity::warning,
     "a host array built from a quoted $(scontrol show hostnames): one element"},
    {"audit.shellcheck", Severity::error,
     "audit --shellcheck: a shellcheck code that breaks a batch job (parse errors, line breaks, arrays, cd, exec)"},
  };
  return k_rules;
}

} // namespace lg::audit
