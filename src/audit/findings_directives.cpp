// The #SBATCH lines themselves: values sbatch never expands, values it
// rejects (letters in counts, empty values, placeholders), options it does
// not have (sbatch_options.cpp), lines it does not read (indented, `!#SBATCH`,
// after the first command) and misspelled directive prefixes.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <array>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lg::audit::detail {

namespace {

// #SBATCH values are read by sbatch as text: $VAR, ${VAR}, $(…) and `…`
// reach Slurm unexpanded (sbatch man page: "environment variables are not
// expanded in #SBATCH lines").
void unexpanded_directives(FindingContext& c)
{
  for (const auto& d : c.model.directives) {
    if (!d.has_value) {
      continue;
    }
    const auto dollar = d.value.find_first_of("$`");
    if (dollar == std::string::npos) {
      continue;
    }
    // The option and its value as written: "-G $NUM_GPU", "--gpus=$N".
    std::string separator = d.spelled.starts_with("--") ? "=" : " ";
    const auto after_option = static_cast<std::size_t>(d.offset) + d.spelled.size();
    if (d.offset >= 0 && d.value_offset > d.offset && after_option <= static_cast<std::size_t>(d.value_offset)
        && static_cast<std::size_t>(d.value_offset) <= c.model.text.size()) {
      const std::string between = c.model.text.substr(after_option, static_cast<std::size_t>(d.value_offset) - after_option);
      if (!between.empty() && between.find_first_not_of(" \t=") == std::string::npos) {
        separator = between;
      }
    }
    // An ignored line (after the first command) is reported too: moved up as
    // audit.directive_ignored says, its value would still reach Slurm as text.
    c.add(Severity::error, "audit.directive_unexpanded",
          fmt::format("#SBATCH {}{}{}: sbatch does not expand variables or commands in #SBATCH lines, so Slurm "
                      "receives the text as written{}",
                      d.spelled, separator, d.value,
                      d.late ? " (once the line is moved above the first command; where it is now, it is ignored)"
                                : ""),
          fmt::format("write the value literally, or pass it on the command line: sbatch {}=\"$VALUE\" script.sh",
                      d.spelled.starts_with("--") ? d.spelled : "--" + d.name),
          d.value_offset >= 0 ? d.value_offset : d.offset);
  }
}

// sbatch parses these #SBATCH values before anything is queued; a word
// where a number belongs ("--nodes=NUM_NODES", "-t TIME") stops it with the
// message below (Slurm 22.05 src/common/slurm_opt.c, seen from the real
// sbatch). Only letters are judged: Slurm versions differ on lists and ranges.
std::optional<std::string> directive_value_error(const Directive& d)
{
  auto letters = [](std::string_view v) {
    return std::count_if(v.begin(), v.end(), [](unsigned char ch) { return std::isalpha(ch) != 0; });
  };
  const std::string& v = d.value;
  std::string upper = v;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  if (d.name == "nodes" && letters(v) > 0) {
    return fmt::format("\"{}\" is not a valid node count", v);
  }
  if ((d.name == "ntasks" || d.name == "ntasks-per-node" || d.name == "cpus-per-task") && letters(v) > 0) {
    return fmt::format("Invalid numeric value \"{}\" for --{}.", v, d.name);
  }
  if (d.name == "time" && letters(v) > 0 && upper != "UNLIMITED" && upper != "INFINITE") {
    return std::string("Invalid --time specification");
  }
  if (d.name == "mem") {
    std::size_t digits = 0;
    while (digits < v.size() && std::isdigit(static_cast<unsigned char>(v[digits])) != 0) {
      ++digits;
    }
    const std::string unit = upper.substr(digits);
    const bool ok = digits > 0 && (unit.empty() || unit == "K" || unit == "M" || unit == "G" || unit == "T"
                                   || unit == "KB" || unit == "MB" || unit == "GB" || unit == "TB");
    if (!ok) {
      return std::string("Invalid --mem specification");
    }
  }
  return std::nullopt;
}

// What sbatch says for `#SBATCH --NAME=` with nothing after '=', for the
// options it refuses empty (each measured with `sbatch --test-only` on the
// local Slurm 22.05). The others it accepts empty (--mail-user, --comment,
// --job-name, --output, --qos, --constraint, --reservation, --gpus,
// --gpus-per-node, --array …), so an empty one is not reported; --account
// depends on the cluster's accounting and is judged by the caller.
std::optional<std::string_view> empty_value_refusal(std::string_view name)
{
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 24> k_refused = {{
    {"partition", "invalid partition specified: (null)"},
    {"nodes", "\"\" is not a valid node count"},
    {"ntasks", "Invalid numeric value \"\" for --ntasks."},
    {"ntasks-per-node", "Invalid numeric value \"\" for --ntasks-per-node."},
    {"cpus-per-task", "Invalid numeric value \"\" for --cpus-per-task."},
    {"cpus-per-gpu", "Invalid numeric value \"\" for --cpus-per-gpu."},
    {"ntasks-per-gpu", "Invalid numeric value \"\" for --ntasks-per-gpu."},
    {"mincpus", "Invalid numeric value \"\" for --mincpus."},
    {"switches", "Invalid numeric value \"\" for --switches."},
    {"time", "Invalid --time specification"},
    {"time-min", "Invalid --time-min specification"},
    {"begin", "Invalid --begin specification"},
    {"mem", "Invalid --mem specification"},
    {"mem-per-cpu", "Invalid --mem-per-cpu specification"},
    {"mem-per-gpu", "Invalid --mem-per-gpu specification"},
    {"tmp", "Invalid --tmp specification"},
    {"gres", "Invalid Trackable RESource (TRES) specification"},
    {"signal", "Invalid --signal specification"},
    {"mail-type", "Invalid --mail-type specification"},
    {"open-mode", "Invalid --open-mode specification"},
    {"distribution", "Invalid --distribution specification"},
    {"hint", "unrecognized --hint argument \"\", see --hint=help"},
    {"gpu-bind", "Invalid --gpu-bind argument: gpu:"},
    {"cpu-freq", "unrecognized --cpu-freq argument \"\""},
  }};
  for (const auto& [option, message] : k_refused) {
    if (option == name) {
      return message;
    }
  }
  return std::nullopt;
}

// `#SBATCH --partition==gpu` or `#SBATCH --time =`: a doubled or spaced '='
// leaves '=' in the value, and sbatch rejects it for the options it checks
// (Slurm 22.05 says "invalid partition specified: =" and "Invalid --time
// specification" for these two lines).
bool checked_option(const std::string& name)
{
  static constexpr std::array<std::string_view, 16> k_checked = {
    "partition", "account",   "qos",   "time",           "nodes",      "ntasks",         "ntasks-per-node", "cpus-per-task",
    "mem",       "mem-per-gpu", "gres", "gpus",          "gpus-per-node", "gpus-per-task", "constraint",   "reservation"};
  return std::find(k_checked.begin(), k_checked.end(), name) != k_checked.end();
}

void directive_values(FindingContext& c)
{
  for (const auto& d : c.model.directives) {
    if (!d.ignored && d.has_value && d.value.starts_with("=") && checked_option(d.name)) {
      c.add(Severity::error, "audit.directive_value",
            fmt::format("#SBATCH {} holds \"{}\": an extra or spaced '=' becomes part of the value, and sbatch stops "
                        "before queueing{}",
                        d.spelled, d.value,
                        d.name == "partition" ? " (the local Slurm 22.05: \"invalid partition specified: =\")"
                        : d.name == "time"    ? " (the local Slurm 22.05: \"Invalid --time specification\")"
                                              : ""),
            fmt::format("write it as --{}=VALUE, with one '=' and no spaces", d.name),
            d.value_offset >= 0 ? d.value_offset : d.offset);
      continue;
    }
    // "--partition=   # <---- partition …": a blank left for the reader.
    if (!d.ignored && d.has_value && d.value.empty() && d.spelled.starts_with("--")) {
      if (const auto refusal = empty_value_refusal(d.name)) {
        c.add(Severity::error, "audit.directive_value",
              fmt::format("#SBATCH {}= is left empty: sbatch stops before queueing (the local Slurm 22.05: \"{}\")",
                          d.spelled, *refusal),
              fmt::format("fill in the {} or delete the line", d.name), d.offset);
      } else if (d.name == "account") {
        c.add(Severity::warning, "audit.directive_value",
              fmt::format("#SBATCH {}= is left empty: a cluster that enforces accounts refuses the job (the local "
                          "Slurm 22.05: \"Invalid account or account/partition combination specified\"); one with "
                          "a default account runs it",
                          d.spelled),
              "fill in the account or delete the line", d.offset);
      }
      continue;  // --mail-user=, --comment=, --qos=, --constraint= …: sbatch accepts them empty
    }
    if (d.ignored || !d.has_value || d.value.empty() || d.value.find_first_of("$`") != std::string::npos
        || placeholder(d.value, c.options.template_mode)
        || (d.spelled.starts_with("--") && names_its_option(d.name, d.value))
        || (c.options.template_mode && d.value.find("{{") != std::string::npos)) {
      continue;  // unexpanded and placeholder values have their own findings
    }
    if (const auto error = directive_value_error(d)) {
      c.add(Severity::error, "audit.directive_value",
            fmt::format("#SBATCH {}={} is not a value sbatch accepts: it stops before queueing with \"sbatch: error: "
                        "{}\"",
                        d.spelled, d.value, *error),
            fmt::format("write the {} literally (sbatch reads #SBATCH lines as text), or pass it on the command line: "
                        "sbatch --{}=VALUE script.sh",
                        d.name == "time" ? "time limit" : d.name == "mem" ? "memory" : "count", d.name),
            d.value_offset >= 0 ? d.value_offset : d.offset);
    }
  }
}

// The rest of the line from `from`, without a trailing " # comment".
std::string line_before_comment(const std::string& text, std::size_t from)
{
  const auto eol = text.find('\n', from);
  std::string line = text.substr(from, eol == std::string::npos ? std::string::npos : eol - from);
  if (const auto comment = line.find(" #"); comment != std::string::npos) {
    line.resize(comment);
  }
  return line;
}

// Lines that read as #SBATCH options but that sbatch skips: it reads only
// lines beginning with "#SBATCH" (an indented one, or "!#SBATCH", is not
// read, as the local cluster's sbatch shows). "##SBATCH" is the usual way
// to switch one off and is not reported; heredoc bodies are another file's.
void unread_directives(FindingContext& c)
{
  const ScriptModel& m = c.model;
  for (std::size_t l = 0; l < m.line_starts.size(); ++l) {
    const auto begin = static_cast<std::size_t>(m.line_starts[l]);
    const auto first = m.text.find_first_not_of(" \t", begin);
    if (first == std::string::npos || m.text.compare(first, 1, "\n") == 0) {
      continue;
    }
    const bool indented = first > begin && m.text.compare(first, 7, "#SBATCH") == 0;
    const bool banged = first == begin && m.text.compare(first, 8, "!#SBATCH") == 0;
    const int at = static_cast<int>(first);
    const bool in_heredoc = std::any_of(m.heredocs.begin(), m.heredocs.end(),
                                        [&](const auto& h) { return at >= h.first && at < h.second; });
    if ((!indented && !banged) || in_heredoc) {
      continue;
    }
    const std::string line = line_before_comment(m.text, first);
    c.add(Severity::warning, "audit.directive_unread",
          fmt::format("`{}` is not read by sbatch: only lines that begin with #SBATCH are options ({})", line,
                      indented ? "this one is indented" : "this one begins with '!'"),
          fmt::format("write it as `{}` at the start of the line, above the first command (or `##SBATCH …` to switch "
                      "it off on purpose)",
                      line.substr(line.find("#SBATCH"))),
          at);
  }
}

// One edit (a letter changed, dropped, added, or two swapped) from "SBATCH".
bool near_sbatch(std::string word)
{
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  const std::string want = "SBATCH";
  if (word == want) {
    return true;  // "#sbatch", "#Sbatch": another case
  }
  if (word.size() == want.size()) {
    std::vector<std::size_t> diff;
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (word[i] != want[i]) {
        diff.push_back(i);
      }
    }
    return diff.size() == 1
           || (diff.size() == 2 && diff[1] == diff[0] + 1 && word[diff[0]] == want[diff[1]] && word[diff[1]] == want[diff[0]]);
  }
  const std::string& longer = word.size() > want.size() ? word : want;
  const std::string& shorter = word.size() > want.size() ? want : word;
  if (longer.size() != shorter.size() + 1) {
    return false;
  }
  for (std::size_t skip = 0; skip < longer.size(); ++skip) {
    if (longer.substr(0, skip) + longer.substr(skip + 1) == shorter) {
      return true;
    }
  }
  return false;
}

// "#SBTACH -e err.log", "#sbatch --nodes=2" among the directives: sbatch
// matches the exact prefix "#SBATCH" (sbatch(1): "#SBATCH", case
// sensitive), so the line is a comment and the option is never set.
void misspelled_directives(FindingContext& c)
{
  const ScriptModel& m = c.model;
  for (std::size_t l = 0; l < m.line_starts.size(); ++l) {
    const auto begin = static_cast<std::size_t>(m.line_starts[l]);
    if (c.model.first_command_offset >= 0 && static_cast<int>(begin) >= c.model.first_command_offset) {
      break;
    }
    if (m.text.compare(begin, 1, "#") != 0 || m.text.compare(begin, 7, "#SBATCH") == 0) {
      continue;
    }
    std::size_t end = begin + 1;
    while (end < m.text.size() && std::isalpha(static_cast<unsigned char>(m.text[end])) != 0) {
      ++end;
    }
    const std::string word = m.text.substr(begin + 1, end - begin - 1);
    const auto option = m.text.find_first_not_of(" \t", end);
    if (word.size() < 5 || end == m.text.size() || (m.text[end] != ' ' && m.text[end] != '\t') || option == std::string::npos
        || m.text[option] != '-' || !near_sbatch(word)) {
      continue;
    }
    const std::string line = line_before_comment(m.text, begin);
    c.add(Severity::warning, "audit.directive_unread",
          fmt::format("`{}` is not read by sbatch: it reads only lines that begin with exactly #SBATCH (case "
                      "sensitive), so #{} is a comment and the option is never set",
                      line, word),
          fmt::format("spell it `#SBATCH{}`", line.substr(1 + word.size())), static_cast<int>(begin));
  }
}

// "SBATCH --output=out.txt" with its '#' lost: bash runs a command named
// SBATCH ("SBATCH: command not found", status 127), sbatch never reads the
// option (it reads only lines beginning with "#SBATCH"), and a command there
// ends the directives for every #SBATCH line below it (directive_ignored).
void directive_without_hash(FindingContext& c)
{
  for (const auto& command : c.model.commands) {
    if (command.words.size() < 2 || !command.words[0].known || command.words[0].text() != "SBATCH"
        || command.words[0].offset != command.begin || !command.words[1].text().starts_with("-")) {
      continue;
    }
    const std::string line = line_before_comment(c.model.text, static_cast<std::size_t>(command.begin));
    c.add(Severity::warning, "audit.directive_unread",
          fmt::format("`{}` has no '#': bash runs it as a command named SBATCH (\"command not found\"), sbatch never "
                      "reads the option{}",
                      line,
                      command.begin == c.model.first_command_offset
                        ? ", and as the first command it ends the #SBATCH lines: sbatch ignores every one below it"
                        : ""),
          fmt::format("write it `#{}`", line), command.begin);
  }
}

} // namespace

// `#SBATCH --time=5` and later `#SBATCH --time=7`: sbatch reads the lines
// in order and a single-valued option keeps its last value (on the local
// Slurm 22.05 the job's TimeLimit is 00:07:00), so the earlier line does
// nothing. Not for options that add up (--mail-type: the same job shows
// MailType=BEGIN,END,FAIL from three lines). Advice, on the line that does
// nothing, naming the one that counts; per heterogeneous component.
void repeated_directives(FindingContext& c)
{
  static const std::set<std::string> k_single = {
    "time", "nodes", "ntasks", "ntasks-per-node", "partition", "account", "qos", "gpus-per-node", "cpus-per-task",
    "mem", "output", "error", "job-name", "gpus", "time-min", "constraint", "array"};
  const auto& ds = c.model.directives;
  for (std::size_t i = 0; i < ds.size(); ++i) {
    if (ds[i].ignored || !ds[i].has_value || k_single.count(ds[i].name) == 0) {
      continue;
    }
    for (std::size_t k = i + 1; k < ds.size(); ++k) {
      if (ds[k].ignored || ds[k].name != ds[i].name || ds[k].component != ds[i].component || !ds[k].has_value) {
        continue;
      }
      if (ds[k].value != ds[i].value) {
        c.add(Severity::advice, "audit.directive_repeated",
              fmt::format("#SBATCH {}{}{} is set again on line {} ({}{}{}): sbatch keeps the last value, so this "
                          "line has no effect",
                          ds[i].spelled, ds[i].spelled.starts_with("--") ? "=" : " ", ds[i].value,
                          c.model.line_of(ds[k].offset), ds[k].spelled, ds[k].spelled.starts_with("--") ? "=" : " ",
                          ds[k].value),
              "keep one line with the value you mean", ds[i].offset);
      }
      break;
    }
  }
}

void directive_findings(FindingContext& context)
{
  repeated_directives(context);
  unexpanded_directives(context);
  directive_values(context);
  directive_options(context);
  unread_directives(context);
  misspelled_directives(context);
  directive_without_hash(context);
}

} // namespace lg::audit::detail
