// #SBATCH lines after the first command (audit.directive_ignored): sbatch
// reads directives up to the first command and no further (sbatch(1): "before
// any executable commands"), so every directive behind it has the same cause
// and the same fix; they are one finding on the first of them, listing the
// others. Lines that only repeat options set above the first command (a
// second job's header pasted below the first one) change nothing as they
// stand: that is advice, and moving them up is not the fix.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace lg::audit::detail {

namespace {

// `SBATCH --opt` with its '#' lost is the first command: the directives up
// to the next real command come back with that '#' (directive_unread says
// so), so they are not reported a second time here. Returns the offset below
// which late directives are covered by that finding, or -1.
int covered_by_unread(const ScriptModel& m)
{
  for (const auto& command : m.commands) {
    const bool hashless = command.words.size() >= 2 && command.words[0].known && command.words[0].text() == "SBATCH"
                          && command.words[1].text().starts_with("-");
    if (!hashless) {
      return command.begin == m.first_command_offset ? -1 : command.begin;
    }
  }
  return -1;
}

std::string unquoted(const std::string& value)
{
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
    return value.substr(1, value.size() - 2);
  }
  return value;
}

// The directive sbatch did read for the same option and job component, or
// null (the last one wins: sbatch reads the lines in order, a later value
// replaces an earlier one).
const Directive* read_before(const ScriptModel& m, const Directive& late)
{
  const Directive* found = nullptr;
  for (const auto& d : m.directives) {
    if (!d.late && d.name == late.name && d.component == late.component) {
      found = &d;
    }
  }
  return found;
}

std::string joined(const std::vector<std::string>& items)
{
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += fmt::format("{}{}", i == 0 ? "" : ", ", items[i]);
  }
  return out;
}

// Every late line repeats an option sbatch read: advice, naming the values
// that moving the lines up would change.
void repeated_only(FindingContext& context, const std::vector<const Directive*>& late, const std::string& where)
{
  const ScriptModel& m = context.model;
  std::vector<std::string> options;
  std::vector<std::string> changes;
  for (const Directive* d : late) {
    options.push_back(d->spelled);
    const Directive* above = read_before(m, *d);
    if (d->has_value && above->has_value && unquoted(d->value) != unquoted(above->value)) {
      changes.push_back(fmt::format("{} {} (line {}) with {}", d->spelled, above->value, m.line_of(above->offset),
                                    d->value));
    }
  }
  std::string message = fmt::format(
    "{} after the first command{}: sbatch ignores {}, and {} an option already set above the first command ({}), "
    "so {} nothing as {}",
    late.size() == 1 ? "#SBATCH " + late.front()->spelled + " comes" : fmt::format("{} #SBATCH lines come", late.size()),
    where, late.size() == 1 ? "it" : "them", late.size() == 1 ? "it repeats" : "each repeats", joined(options),
    late.size() == 1 ? "it changes" : "they change", late.size() == 1 ? "it stands" : "they stand");
  if (!changes.empty()) {
    message += fmt::format("; moved up, {} would replace {}", late.size() == 1 ? "it" : "they", joined(changes));
  }
  context.add(Severity::advice, "audit.directive_ignored", std::move(message),
              "delete the ignored lines (a second job's header?) and edit the directives above the first command",
              late.front()->offset);
}

} // namespace

void late_directive_findings(FindingContext& context)
{
  const ScriptModel& m = context.model;
  const int covered = covered_by_unread(m);
  std::vector<const Directive*> late;
  std::vector<std::string> unset;
  std::vector<std::string> repeated;
  std::vector<std::string> lost;  // what the job then lacks: its nodes, its GPUs
  for (const auto& d : m.directives) {
    if (d.late && (covered < 0 || d.offset > covered)) {
      late.push_back(&d);
      const bool set_above = read_before(m, d) != nullptr;
      (set_above ? repeated : unset).push_back(d.spelled);
      if (!set_above && d.name == "nodes" && d.has_value && d.value != "1") {
        lost.push_back(fmt::format("its {} nodes", d.value));
      } else if (!set_above && (d.name == "gpus" || d.name == "gpus-per-node" || d.name == "gpus-per-task"
                                || (d.name == "gres" && d.value.find("gpu") != std::string::npos))) {
        lost.push_back("its GPUs");
      }
    }
  }
  // Without its node count or its GPU request the job runs on one node with no
  // GPU: the launch cannot start as written (an error); otherwise a warning.
  std::sort(lost.begin(), lost.end());
  lost.erase(std::unique(lost.begin(), lost.end()), lost.end());
  const Severity severity = lost.empty() ? Severity::warning : Severity::error;
  const std::string consequence =
    lost.empty() ? "" : fmt::format(": the job loses {}", joined(lost));
  if (late.empty()) {
    return;
  }
  const std::string where = m.first_command_offset >= 0 ? fmt::format(" (line {})", m.line_of(m.first_command_offset))
                                                        : "";
  if (unset.empty()) {
    repeated_only(context, late, where);
    return;
  }
  if (late.size() == 1) {
    context.add(
      severity, "audit.directive_ignored",
      fmt::format("#SBATCH {} comes after the first command{}: sbatch stops reading directives there and ignores it{}",
                  late.front()->spelled, where, consequence),
      "move the #SBATCH line above the first command", late.front()->offset);
    return;
  }
  std::vector<std::string> options;
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < late.size(); ++i) {
    options.push_back(late[i]->spelled);
    if (i > 0) {
      lines.push_back(std::to_string(m.line_of(late[i]->offset)));
    }
  }
  const std::string defaults =
    repeated.empty() ? "for each"
                     : fmt::format("for {} ({} {} set above the first command as well)", joined(unset),
                                   joined(repeated), repeated.size() == 1 ? "is" : "are");
  context.add(severity, "audit.directive_ignored",
              fmt::format("{} #SBATCH lines come after the first command{}: sbatch stops reading directives there and "
                          "ignores all of them ({}; also on line{} {}), so the job runs with Slurm's defaults {}{}; the "
                          "other findings judge the job as the lines mean it",
                          late.size(), where, joined(options), late.size() > 2 ? "s" : "", joined(lines), defaults,
                          consequence),
              "move the #SBATCH lines above the first command", late.front()->offset);
}

} // namespace lg::audit::detail
