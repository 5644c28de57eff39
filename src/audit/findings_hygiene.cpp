// Script hygiene: exports after the launch line, assignments never exported,
// directives sbatch ignores, leftover placeholders, --output into a missing
// directory.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <array>
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

void exports_after_launch(FindingContext& context)
{
  const ScriptModel& m = context.model;
  if (context.job.launch == nullptr) {
    return;
  }
  const int after = last_launch_end(m);
  const int launch_begin = m.commands[static_cast<std::size_t>(context.job.launch->command)].begin;
  const int insert_at = m.line_begin(m.line_of(launch_begin));
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
    if (begin >= 0) {
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
  for (const auto& use : m.uses) {
    if (use.name == name && use.offset > offset) {
      return true;
    }
  }
  return false;
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
        || a.name.starts_with("MASTER_") || a.name == "WORLD_SIZE" || used_after(m, a.name, a.offset)) {
      continue;
    }
    bool later_export = false;
    for (const auto& b : m.assignments) {
      later_export = later_export || (b.name == a.name && b.offset > a.offset && b.exported);
    }
    if (later_export) {
      continue;
    }
    auto& finding = context.add(
      Severity::warning, "audit.not_exported",
      fmt::format("{} is assigned but not exported: the launched processes do not see it", a.name),
      fmt::format("export {}", a.name), a.offset);
    if (a.offset >= 0 && m.text.compare(static_cast<std::size_t>(a.offset), a.name.size(), a.name) == 0
        && m.commands[static_cast<std::size_t>(a.command)].begin == a.offset) {
      finding.edits.push_back(Edit{a.offset, a.offset, "export "});
    }
  }
}

void ignored_directives(FindingContext& context)
{
  for (const auto& d : context.model.directives) {
    if (d.ignored) {
      context.add(Severity::warning, "audit.directive_ignored",
                  fmt::format("#SBATCH {} comes after the first command: sbatch stops reading directives there "
                              "and ignores it",
                              d.spelled),
                  "move the #SBATCH line above the first command", d.offset);
    }
  }
}

void output_directory(FindingContext& context)
{
  if (!context.options.directory_exists || context.options.template_mode) {
    return;
  }
  const Directive* chdir = context.model.directive("chdir");
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
    if (dir.find('%') != std::string::npos || dir.find('$') != std::string::npos || dir.find('{') != std::string::npos) {
      continue;
    }
    if (dir[0] == '/') {
      // A shared file system of the cluster (/fsx, /lustre, …) that this
      // machine does not mount cannot be judged from here.
      const auto second = dir.find('/', 1);
      if (!context.options.directory_exists(dir.substr(0, second))) {
        continue;
      }
    } else if (chdir != nullptr) {
      if (chdir->value.empty() || chdir->value[0] != '/') {
        continue;
      }
      dir = chdir->value + "/" + dir;
    }
    if (!context.options.directory_exists(dir)) {
      context.add(Severity::warning, "audit.output_directory",
                  fmt::format("--{} writes into {}, which does not exist here: Slurm opens the file before the "
                              "script runs and does not create directories, so the job fails without a log",
                              name, dir),
                  fmt::format("mkdir -p {} before sbatch (a mkdir inside the script is too late)", dir), d->value_offset);
    }
  }
}

} // namespace

void hygiene_findings(FindingContext& context)
{
  exports_after_launch(context);
  not_exported(context);
  ignored_directives(context);
  output_directory(context);
}

} // namespace lg::audit::detail
