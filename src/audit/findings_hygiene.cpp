// Script hygiene: exports after the launch line, assignments never exported,
// leftover placeholders, --output into a missing directory (directives sbatch
// ignores: findings_late_directives.cpp).
#include "audit/findings.hpp"

#include "audit/launch.hpp"
#include "env/hard_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string_view>

namespace lg::audit::detail {

namespace {

int last_launch_end(const ScriptModel& model)
{
  int end = -1;
  for (const auto& l : model.launches) {
    end = std::max(end, model.commands[static_cast<std::size_t>(l.command)].end);
  }
  return end;
}

// An export can move above the launch when it is a top-level command (moving
// it out of an if/for would change when it runs, or leave an empty block) and
// its value reads nothing assigned between the launch and the export (moved,
// it would read the old value, or none).
bool export_movable_above(const ScriptModel& m, const Assignment& a, int launch_begin)
{
  if (a.command < 0 || m.commands[static_cast<std::size_t>(a.command)].depth != 0) {
    return false;
  }
  auto assigned_between = [&](const std::string& name) {
    return std::any_of(m.assignments.begin(), m.assignments.end(), [&](const Assignment& b) {
      return b.name == name && b.offset > launch_begin && b.offset < a.offset && b.kind != AssignKind::export_only;
    });
  };
  if (a.kind == AssignKind::export_only && assigned_between(a.name)) {
    return false;  // X=... after the launch, then `export X`: the value comes too late anyway
  }
  return std::none_of(m.uses.begin(), m.uses.end(),
                      [&](const VarUse& use) { return use.command == a.command && assigned_between(use.name); });
}

void exports_after_launch(FindingContext& context)
{
  const ScriptModel& m = context.model;
  if (context.job.launch == nullptr) {
    return;
  }
  const int after = last_launch_end(m);
  const int launch_begin = m.commands[static_cast<std::size_t>(context.job.launch->command)].begin;
  const int insert_at = insert_before_launch(m, *context.job.launch, true);
  for (const auto& a : m.assignments) {
    if (a.offset < after || a.prefix || !a.exported || a.kind == AssignKind::unset || !runtime_variable(a.name)) {
      continue;
    }
    auto& finding = context.add(
      Severity::warning, "audit.export_after_launch",
      fmt::format("{} is exported after the launch line (line {}): the training processes never see it",
                  a.name, m.line_of(launch_begin)),
      fmt::format("move the export above line {}", m.line_of(launch_begin)), a.offset);
    const auto [begin, end] = own_lines(m, a.command);
    if (begin >= 0 && insert_at >= 0 && export_movable_above(m, a, launch_begin)) {
      finding.edits.push_back(Edit{begin, end, ""});
      std::string moved = m.text.substr(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
      if (moved.empty() || moved.back() != '\n') {
        moved += '\n';
      }
      finding.edits.push_back(Edit{insert_at, insert_at, moved});
    }
  }
}

bool used_after(const ScriptModel& m, const std::string& name, int offset)
{
  // An unquoted heredoc's body reads it too (`cat > env.sh <<EOF … $NAME …`).
  for (const auto* uses : {&m.uses, &m.heredoc_uses}) {
    for (const auto& use : *uses) {
      if (use.name == name && use.offset > offset) {
        return true;
      }
    }
  }
  return false;
}

// Variables Slurm's GPU plugin puts into the job's environment when the job
// is given GPUs (Slurm gres.html: CUDA_VISIBLE_DEVICES is set for each step,
// and "the environment variable set for the sbatch command only reflects the
// GPUs allocated to that job on that node"; ROCR_VISIBLE_DEVICES and
// GPU_DEVICE_ORDINAL likewise): they arrive exported, so a plain assignment
// changes the value the children see.
bool set_by_slurm_gpu_plugin(const std::string& name)
{
  return name == "CUDA_VISIBLE_DEVICES" || name == "ROCR_VISIBLE_DEVICES" || name == "GPU_DEVICE_ORDINAL";
}

// Names that change only what the processes print (OpenMP's affinity and
// environment displays, NCCL's and PyTorch's log levels): unexported, the
// log lacks those lines and the job runs as it would have.
bool logging_only(const std::string& name)
{
  static const std::set<std::string> k_logging = {
    "OMP_DISPLAY_AFFINITY", "OMP_DISPLAY_ENV", "OMP_AFFINITY_FORMAT", "NCCL_DEBUG", "NCCL_DEBUG_SUBSYS",
    "NCCL_DEBUG_FILE", "TORCH_CPP_LOG_LEVEL", "TORCH_SHOW_CPP_STACKTRACES", "TORCH_LOGS", "NVTE_DEBUG",
    "NVTE_DEBUG_LEVEL", "TRANSFORMERS_VERBOSITY", "HF_HUB_VERBOSITY", "TORCH_DISTRIBUTED_DEBUG"};
  return k_logging.count(name) != 0;
}

void not_exported(FindingContext& context)
{
  const ScriptModel& m = context.model;
  if (context.job.launch == nullptr) {
    return;
  }
  const int launch_begin = m.commands[static_cast<std::size_t>(context.job.launch->command)].begin;
  for (const auto& a : m.assignments) {
    if (a.offset >= launch_begin || a.exported || a.prefix || a.kind != AssignKind::assign || !runtime_variable(a.name)
        || a.name.starts_with("MASTER_") || a.name == "WORLD_SIZE" || used_after(m, a.name, a.offset)
        || (context.job.gpus_per_node > 0 && set_by_slurm_gpu_plugin(a.name))) {
      continue;
    }
    bool later_export = false;
    for (const auto& b : m.assignments) {
      later_export = later_export || (b.name == a.name && b.offset > a.offset && b.exported);
    }
    if (later_export) {
      continue;
    }
    // CUDA_LAUNCH_BLOCKING=1 left unexported is a debugging switch that is,
    // as it happens, off: exporting it would slow every step.
    const std::string value = a.known && !a.value.empty() ? a.value.front().text() : "";
    if (const char* effect = env::debug_setting_effect(a.name, value)) {
      context.add(Severity::advice, "audit.not_exported",
                  fmt::format("{}={} is assigned but not exported, so the launched processes do not see it; do not "
                              "export it: it is a debugging setting ({})",
                              a.name, value, effect),
                  fmt::format("remove the assignment of {} (exporting it slows every step)", a.name), a.offset);
      continue;
    }
    const bool logging = logging_only(a.name);
    auto& finding = context.add(
      logging ? Severity::advice : Severity::warning, "audit.not_exported",
      fmt::format("{} is assigned but not exported: the launched processes do not see it{}", a.name,
                  logging ? " (it only changes what they print, so the log lacks those lines)" : ""),
      fmt::format("export {}", a.name), a.offset);
    if (a.offset >= 0 && m.text.compare(static_cast<std::size_t>(a.offset), a.name.size(), a.name) == 0
        && m.commands[static_cast<std::size_t>(a.command)].begin == a.offset) {
      finding.edits.push_back(Edit{a.offset, a.offset, "export "});
    }
  }
}

// `ZERO_STAGE=3` assigned and never read: no expansion, no export, no file
// sourced after it that could read it. DeepSpeed takes the ZeRO stage from
// its config (zero_optimization.stage) or Megatron-DeepSpeed's
// --zero-stage, not from a shell variable, so the setting the script
// names reaches nothing and the job trains with another. Round 23's
// DeepSpeed job. Advice, for names that say a training setting.
bool training_setting_name(const std::string& name)
{
  static const std::set<std::string> k_names = {
    "ZERO_STAGE", "TP", "PP", "EP", "CP", "VPP", "TP_SIZE", "PP_SIZE", "EP_SIZE", "CP_SIZE", "TENSOR_PARALLEL",
    "PIPELINE_PARALLEL", "TENSOR_PARALLEL_SIZE", "PIPELINE_PARALLEL_SIZE", "MICRO_BATCH_SIZE", "MBS",
    "GLOBAL_BATCH_SIZE", "GBS", "SEQ_LEN", "SEQ_LENGTH", "TRAIN_ITERS", "TRAIN_STEPS", "MAX_STEPS", "NUM_LAYERS",
    "HIDDEN_SIZE", "LR", "LEARNING_RATE", "GRAD_ACC_STEPS", "GRADIENT_ACCUMULATION_STEPS"};
  return k_names.count(name) != 0;
}

void unused_settings(FindingContext& context)
{
  const ScriptModel& m = context.model;
  if (context.job.launch == nullptr) {
    return;
  }
  for (const auto& a : m.assignments) {
    if (a.kind != AssignKind::assign || a.prefix || a.exported || !a.literal || !training_setting_name(a.name)
        || a.command < 0 || m.commands[static_cast<std::size_t>(a.command)].depth != 0) {
      continue;
    }
    const bool read = std::any_of(m.uses.begin(), m.uses.end(), [&](const VarUse& u) { return u.name == a.name; })
                      || std::any_of(m.heredoc_uses.begin(), m.heredoc_uses.end(),
                                     [&](const VarUse& u) { return u.name == a.name; })
                      || std::any_of(m.assignments.begin(), m.assignments.end(), [&](const Assignment& b) {
                           return b.name == a.name && (b.exported || b.kind == AssignKind::export_only);
                         })
                      || std::any_of(m.sources.begin(), m.sources.end(), [&](int at) { return at > a.offset; })
                      || m.text.find("eval") != std::string::npos || m.text.find("envsubst") != std::string::npos;
    if (read) {
      continue;
    }
    const std::string value = a.value.empty() ? "" : a.value.front().text();
    context.add(Severity::advice, "audit.unused_setting",
                fmt::format("{}={} is set and never used: nothing expands or exports it, so the setting it names "
                            "does not reach the launch (the job runs with the program's own value)",
                            a.name, value),
                fmt::format("pass it where the program reads it (a flag, the launcher's config), or remove the line"),
                a.offset);
  }
}

// `conda shell.bash activate ENV`: conda's shell.* subcommands print the
// shell code that would activate (conda activate's own implementation: the
// `conda` shell function runs `eval "$(conda shell.bash activate …)"`), so
// run bare they print it to the log and change nothing; `hook` likewise.
// The job runs in whatever environment was active at submission.
void printed_activation(FindingContext& context)
{
  for (const auto& command : context.model.commands) {
    const auto& w = command.words;
    if (w.size() < 3 || !w[0].known || !w[1].known || !w[2].known || w[0].offset != command.begin) {
      continue;
    }
    const std::string tool =
      w[0].text().substr(w[0].text().rfind('/') == std::string::npos ? 0 : w[0].text().rfind('/') + 1);
    const std::string verb = w[2].text();
    if ((tool != "conda" && tool != "mamba") || !w[1].text().starts_with("shell.")
        || (verb != "activate" && verb != "deactivate" && verb != "reactivate" && verb != "hook")) {
      continue;
    }
    const std::string env = verb == "activate" && w.size() > 3 && w[3].known ? w[3].text() : "";
    context.add(Severity::warning, "audit.conda_printed",
                fmt::format("`{} {} {}{}` prints the commands that would {} and runs none of them: the job keeps "
                            "the environment it was submitted from",
                            w[0].text(), w[1].text(), verb, env.empty() ? "" : " " + env,
                            verb == "hook" ? "set up `conda activate`" : verb + " the environment"),
                env.empty()
                  ? fmt::format("wrap it: eval \"$({} {} {})\"", w[0].text(), w[1].text(), verb)
                  : fmt::format("eval \"$({} {} hook)\" and then conda activate {}", w[0].text(), w[1].text(), env),
                command.begin);
  }
}

// `conda activate ENV` with nothing before it that sets conda up in this
// shell. `conda activate` is a shell function that conda's setup defines
// (`source …/etc/profile.d/conda.sh`, `eval "$(conda shell.bash hook)"`,
// `conda init`'s block in ~/.bashrc); a batch script is a non-interactive
// shell that reads no ~/.bashrc (bash(1), INVOCATION), and sbatch carries
// exported variables, not shell functions, so the `conda` executable runs and
// stops: "CondaError: Run 'conda init' before 'conda activate'". The job keeps
// the environment it was submitted from. Anything before it that could be the
// setup (a `source` or `.` of any file, an `eval`, a `module` or `ml` command,
// `conda init`, a login shell on the #! line) says nothing.
void conda_without_setup(FindingContext& context)
{
  const ScriptModel& m = context.model;
  const std::string first_line = m.text.substr(0, m.text.find('\n'));
  if (first_line.starts_with("#!")
      && (first_line.find(" -l") != std::string::npos || first_line.find("--login") != std::string::npos)) {
    return;
  }
  for (const auto& command : m.commands) {
    const auto& w = command.words;
    if (w.empty() || !w[0].known || w[0].offset != command.begin) {
      continue;
    }
    const bool sourced_before =
      std::any_of(m.sources.begin(), m.sources.end(), [&](int at) { return at < command.begin; });
    const std::string tool = basename_of(w[0].text());
    const bool setup_word =
      sourced_before || tool == "source" || tool == "." || tool == "eval" || tool == "module" || tool == "ml"
      || ((tool == "conda" || tool == "mamba" || tool == "micromamba") && w.size() > 1 && w[1].known
          && (w[1].text() == "init" || w[1].text() == "shell" || w[1].text().starts_with("shell.")));
    if (setup_word) {
      return;  // the setup may be here: nothing later is judged
    }
    if ((tool != "conda" && tool != "mamba" && tool != "micromamba") || w.size() < 2 || !w[1].known
        || w[1].text() != "activate") {
      continue;
    }
    const std::string env = w.size() > 2 && w[2].known ? " " + w[2].text() : "";
    const bool micro = tool == "micromamba";
    context.add(Severity::warning, "audit.conda_uninitialised",
                fmt::format("`{} activate{}` with no {} shell setup before it: a batch script reads no ~/.bashrc and "
                            "sbatch carries no shell functions, so the executable runs and refuses ({}); the job "
                            "keeps the environment it was submitted from",
                            tool, env, micro ? "micromamba" : "conda",
                            micro ? "micromamba asks for `micromamba shell init`"
                                  : "\"CondaError: Run 'conda init' before 'conda activate'\""),
                micro ? "put `eval \"$(micromamba shell hook -s bash)\"` before it"
                      : fmt::format("put `eval \"$({} shell.bash hook)\"` (or `source \"$(conda info "
                                    "--base)/etc/profile.d/conda.sh\"`) before it",
                                    tool == "mamba" ? "conda" : tool),
                command.begin);
    return;  // one finding: the first activation
  }
}

// Where the script runs `mkdir` on `dir` (offset, or -1), and whether that
// happens before an `sbatch` the script itself runs (a self-submitting or
// `sbatch <<EOF` wrapper: then the directory exists in time).
std::pair<int, bool> mkdir_of(const ScriptModel& model, const std::string& dir)
{
  auto same = [&](std::string t) {
    while (t.size() > 1 && t.back() == '/') {
      t.pop_back();
    }
    if (t.starts_with("./")) {
      t.erase(0, 2);
    }
    return t == dir;
  };
  int made = -1;
  for (const auto& command : model.commands) {
    if (command.words.empty() || !command.words.front().known) {
      continue;
    }
    const std::string& tool = command.words.front().text();
    if (tool == "sbatch" && made >= 0) {
      return {made, true};
    }
    if (tool != "mkdir") {
      continue;
    }
    for (std::size_t i = 1; i < command.words.size(); ++i) {
      if (command.words[i].known && same(command.words[i].text()) && made < 0) {
        made = command.begin;
      }
      // `mkdir -p "$(dirname /out/logs/.)"`: the directory of a literal path
      // (round 25's CSCS job made its --output directory that way).
      const std::string& t = command.words[i].text();
      if (!command.words[i].known && t.starts_with("$(dirname ") && t.ends_with(")") && made < 0) {
        std::string path = t.substr(10, t.size() - 11);
        if (path.size() >= 2 && (path.front() == '"' || path.front() == '\'') && path.back() == path.front()) {
          path = path.substr(1, path.size() - 2);
        }
        while (path.size() > 1 && path.back() == '/') {
          path.pop_back();
        }
        const auto slash = path.rfind('/');
        if (path.find_first_of("$`") == std::string::npos && slash != std::string::npos && slash > 0
            && same(path.substr(0, slash))) {
          made = command.begin;
        }
      }
    }
  }
  return {made, false};
}

// The first filename pattern with one of `letters` in a --output/--error
// value (sbatch(1), "filename pattern": %j job ID, %J job ID.step, %A array
// master job ID, %a array task ID; a number between % and the letter pads
// it; %% is a literal %), or "".
std::string slurm_pattern(const std::string& value, std::string_view letters)
{
  for (std::size_t i = 0; i + 1 < value.size(); ++i) {
    if (value[i] != '%') {
      continue;
    }
    if (value[i + 1] == '%') {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < value.size() && std::isdigit(static_cast<unsigned char>(value[j])) != 0) {
      ++j;
    }
    if (j < value.size() && letters.find(value[j]) != std::string_view::npos) {
      return value.substr(i, j - i + 1);
    }
  }
  return {};
}

std::string job_id_pattern(const std::string& value)
{
  return slurm_pattern(value, "jJA");
}

void output_directory(FindingContext& context)
{
  if (context.options.template_mode) {
    return;
  }
  const Directive* chdir = context.model.directive("chdir");
  std::string reported;  // --error into the same directory as --output: one finding
  for (const char* name : {"output", "error"}) {
    const Directive* d = context.model.directive(name);
    if (d == nullptr || !d->has_value) {
      continue;
    }
    const auto slash = d->value.rfind('/');
    if (slash == std::string::npos || slash == 0) {
      continue;
    }
    std::string dir = d->value.substr(0, slash);
    // `-o log/%A/out`: a directory named after the job ID cannot exist when
    // slurmd opens the file, before the script's first line (the local
    // Slurm 22.05: such a job ends FAILED 0:53 without running).
    if (const std::string pattern = job_id_pattern(dir);
        !pattern.empty() && dir.find('$') == std::string::npos && dir != reported) {
      reported = dir;
      // In an array job a %A directory made by one task's script exists for the tasks that start later.
      const bool array = context.model.directive("array") != nullptr && pattern.back() == 'A';
      context.add(array ? Severity::warning : Severity::error, "audit.output_directory",
                  fmt::format("--{} writes into {}/, named after the job ID ({}): it cannot exist when Slurm opens "
                              "the file at the start of the job (a mkdir in the script runs after that), and Slurm "
                              "does not create directories, so the job fails without running",
                              name, dir, pattern),
                  "keep the job ID in the file name, not the directory (-o logs/%x-%j.out, logs/ made before sbatch)",
                  d->value_offset);
      continue;
    }
    if (dir.find('%') != std::string::npos || dir.find('$') != std::string::npos || dir.find('{') != std::string::npos
        || placeholder(dir, false)) {
      continue;  // Slurm patterns, unexpanded text and placeholders: other rules, or unknowable
    }
    // An absolute path is on the cluster's file systems (/fsx, /lustre, a
    // generated job directory): this machine cannot judge it, unless the job
    // itself makes that directory (`mkdir -p "$RUN_OUT"`): then it may not
    // exist before, and the job's mkdir comes after slurmd opened the file,
    // as for a relative one.
    if (dir[0] == '/') {
      const auto [made, before_submit] = mkdir_of(context.model, dir);
      if (made >= 0 && !before_submit && dir != reported) {
        reported = dir;
        context.add(Severity::warning, "audit.output_directory",
                    fmt::format("--{} writes into {}/, which the job itself creates (mkdir on line {}): Slurm opens "
                                "the file before the script runs and does not create directories, so a run where "
                                "the directory does not exist yet fails without a log",
                                name, dir, context.model.line_of(made)),
                    fmt::format("mkdir -p {} before sbatch (the job's own mkdir comes too late for its log)", dir),
                    d->value_offset);
      }
      continue;
    }
    if (!context.options.directory_exists || (chdir != nullptr && (chdir->value.empty() || chdir->value[0] != '/'))) {
      continue;
    }
    if (chdir != nullptr) {
      continue;  // relative to an absolute --chdir on the cluster
    }
    const auto [made, before_submit] = mkdir_of(context.model, dir);
    if (before_submit || context.options.directory_exists(dir) || dir == reported) {
      continue;
    }
    reported = dir;
    std::string message = fmt::format("--{} writes into {}/, which does not exist next to the script: Slurm opens the "
                                      "file before the script runs and does not create directories, so the job fails "
                                      "without a log",
                                      name, dir);
    if (made >= 0) {
      message += fmt::format(" (the script's own mkdir on line {} runs only after that)", context.model.line_of(made));
    }
    context.add(Severity::warning, "audit.output_directory", std::move(message),
                fmt::format("mkdir -p {} before sbatch, or write the log into the submit directory", dir), d->value_offset);
  }
}

// `#SBATCH --output=logs/%x_%a.out` in a job that is not an array: sbatch(1)
// fills %a with the array task ID, which a job that is no array does not
// have; Slurm writes NO_VAL there (the local Slurm 22.05 names the file
// o_1_4294967294_1.out for `--output=o_%A_%a_%j.out`). With no job ID in
// the name every run writes one file and the last run's log replaces the
// earlier ones. Not judged when the script reads SLURM_ARRAY_* or mentions
// --array (submitted with `sbatch --array=…`, which overrides the script).
void array_pattern(FindingContext& context)
{
  const ScriptModel& m = context.model;
  if (context.options.template_mode || m.text.find("SLURM_ARRAY") != std::string::npos
      || m.text.find("--array") != std::string::npos
      || std::any_of(m.directives.begin(), m.directives.end(), [](const Directive& d) { return d.name == "array"; })) {
    return;
  }
  for (const char* name : {"output", "error"}) {
    const Directive* d = m.directive(name);
    if (d == nullptr || !d->has_value || slurm_pattern(d->value, "a").empty()) {
      continue;
    }
    const bool job_id = !job_id_pattern(d->value).empty();
    context.add(job_id ? Severity::advice : Severity::warning, "audit.array_pattern",
                fmt::format("--{}={} uses %a, the array task ID, but the job is not an array (no --array): Slurm "
                            "writes 4294967294 there{}",
                            name, d->value,
                            job_id ? ", so the log's name carries a meaningless number"
                                   : ", and with no job ID (%j) in the name every run writes the same file, so each "
                                     "run's log replaces the last one's"),
                job_id ? "drop %a (or add #SBATCH --array=… if the job is meant to be an array)"
                       : "name the log after the job: %j (or %x-%j) in place of %a, or add #SBATCH --array=…",
                d->value_offset);
  }
}

} // namespace

void hygiene_findings(FindingContext& context)
{
  exports_after_launch(context);
  not_exported(context);
  unused_settings(context);
  late_directive_findings(context);
  output_directory(context);
  array_pattern(context);
  printed_activation(context);
  conda_without_setup(context);
}

} // namespace lg::audit::detail
