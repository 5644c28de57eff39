// A value the launch uses from a variable the script never sets
// (audit.unset_variable); split from findings_shell.cpp.
#include "audit/findings.hpp"
#include "audit/job_from_script.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace lg::audit::detail {

namespace {

// `trainer.max_steps=${MAX_STEPS}` in a script that sets the other values
// its launch uses but never MAX_STEPS (no assignment, read, default or
// test): unless the submitting shell exports it (sbatch's default
// --export=ALL), it expands to nothing: Hydra takes `key=` as an empty
// value, argparse stops with "expected one argument". Round 22's NeMo
// punctuation job (MAX_STEPS, and `WANDB="${wandb}"`). Judged only for a
// script that sets at least three of its launch's variables and leaves at
// most two unset (one that takes its values from the caller leaves many),
// with no `source` (a sourced file may set them).
void unset_variables(FindingContext& c)
{
  const ScriptModel& m = c.model;
  const Launch* l = c.job.launch;
  const bool sourced = std::any_of(m.sources.begin(), m.sources.end(), [&](int at) { return !activation(m, at); });
  if (l == nullptr || l->command < 0 || sourced || l->sources || !c.job.environment_complete) {
    return;
  }
  std::set<std::string> assigned;
  for (const auto& a : m.assignments) {
    assigned.insert(a.name);
  }
  // Loop and read variables are set too (`for i in …`, `read -r x`,
  // `getopts ab opt`, `select`).
  for (const Command& command : m.commands) {
    const auto& w = command.words;
    if (w.size() >= 2 && w[0].known && (w[0].text() == "for" || w[0].text() == "select")) {
      assigned.insert(w[1].text());
    }
    if (!w.empty() && w[0].known && (w[0].text() == "read" || w[0].text() == "getopts" || w[0].text() == "mapfile"
                                     || w[0].text() == "readarray")) {
      for (std::size_t i = 1; i < w.size(); ++i) {
        assigned.insert(w[i].text());
      }
    }
  }
  const auto special = [](const std::string& name) {
    return name.size() == 1 && std::string_view("@*#?$!-0_").find(name[0]) != std::string_view::npos;
  };
  // `--export "NAME=${NAME}"`: the caller's value passed on by name, on purpose.
  const auto passed_on = [&](const VarUse& u) {
    const auto dollar = m.text.rfind('$', static_cast<std::size_t>(u.offset));
    const std::string before = u.name + "=";
    return dollar != std::string::npos && dollar >= before.size()
           && m.text.compare(dollar - before.size(), before.size(), before) == 0;
  };
  // Where an empty value breaks something: after `key=` or `--flag=`, or as
  // the word after a `--flag`; not a word of its own (`srun $ADDITIONAL_FLAGS
  // …`, an optional hook that, empty, expands to no word: round 26's
  // MegaMolBART template), nor a name that says it holds options.
  const auto value_position = [&](const VarUse& u) {
    if (u.name.ends_with("_FLAGS") || u.name.ends_with("_ARGS") || u.name.ends_with("_OPTS")
        || u.name.starts_with("EXTRA_") || u.name.ends_with("_OPTIONS")) {
      return false;
    }
    auto dollar = m.text.rfind('$', static_cast<std::size_t>(u.offset));
    if (dollar == std::string::npos) {
      return false;
    }
    // `$DIR/train.py`, a path built on it (empty, it starts at `/`), where
    // the script's own assignment of DIR is commented out (`#DIR=…`, round
    // 24's ACCELERATE_DIR); without that, a directory the caller exports
    // (Megatron-LM's SC21 scripts take MEGATRON_CODE_DIR from their caller).
    const std::size_t after = m.text[dollar + 1] == '{' ? m.text.find('}', dollar) + 1 : dollar + 1 + u.name.size();
    if (after < m.text.size() && m.text[after] == '/' && dollar > 0
        && std::string_view(" \t\"'=").find(m.text[dollar - 1]) != std::string_view::npos) {
      for (std::size_t at = 0; at < m.text.size();) {
        const auto eol = std::min(m.text.find('\n', at), m.text.size());
        const auto first = m.text.find_first_not_of(" \t", at);
        if (first != std::string::npos && first < eol && m.text[first] == '#') {
          const std::string line = m.text.substr(first, eol - first);
          for (auto p = line.find(u.name + "="); p != std::string::npos; p = line.find(u.name + "=", p + 1)) {
            if (p > 0 && (std::isalnum(static_cast<unsigned char>(line[p - 1])) == 0 && line[p - 1] != '_')) {
              return true;  // `#  export NAME=…`, `# NAME=…`
            }
          }
        }
        at = eol + 1;
      }
      return false;
    }
    std::size_t k = dollar;
    while (k > 0 && (m.text[k - 1] == '"' || m.text[k - 1] == '\'')) {
      --k;
    }
    if (k > 0 && m.text[k - 1] == '=') {
      return true;  // key=${X}, --flag=${X}
    }
    if (k == 0 || (m.text[k - 1] != ' ' && m.text[k - 1] != '\t')) {
      return false;  // inside a longer word: a path part, a suffix
    }
    // The word before: an option that takes this as its value.
    std::size_t end = k;
    while (end > 0 && (m.text[end - 1] == ' ' || m.text[end - 1] == '\t')) {
      --end;
    }
    std::size_t begin = end;
    while (begin > 0 && m.text[begin - 1] != ' ' && m.text[begin - 1] != '\t' && m.text[begin - 1] != '\n') {
      --begin;
    }
    const std::string before = m.text.substr(begin, end - begin);
    return before.starts_with("-") && before.find('=') == std::string::npos;
  };
  // `for NAME in …` (the loop's words are not a command of their own).
  const auto loop_variable = [&](const std::string& name) {
    for (auto at = m.text.find("for " + name); at != std::string::npos; at = m.text.find("for " + name, at + 1)) {
      const auto after = at + 4 + name.size();
      if ((at == 0 || std::isspace(static_cast<unsigned char>(m.text[at - 1])) != 0 || m.text[at - 1] == ';')
          && after < m.text.size() && (m.text[after] == ' ' || m.text[after] == ';' || m.text[after] == '\n')) {
        return true;
      }
    }
    return false;
  };
  // Names tested or defaulted anywhere are handled by the script.
  std::set<std::string> handled;
  for (const auto* uses : {&m.uses, &m.heredoc_uses}) {
    for (const auto& u : *uses) {
      const bool test = u.command >= 0 && !m.commands[static_cast<std::size_t>(u.command)].words.empty()
                        && (m.commands[static_cast<std::size_t>(u.command)].words.front().text() == "["
                            || m.commands[static_cast<std::size_t>(u.command)].words.front().text() == "[["
                            || m.commands[static_cast<std::size_t>(u.command)].words.front().text() == "test");
      if (u.guarded || test) {
        handled.insert(u.name);
      }
    }
  }
  // The launch's uses: on its command, or in the value of a variable it
  // expands (one level: `CMD="… ${MAX_STEPS} …"`, a heredoc read into it).
  std::set<std::string> through;
  for (const Word& w : m.commands[static_cast<std::size_t>(l->command)].words) {
    through.insert(w.expanded.begin(), w.expanded.end());
  }
  // Followed three levels down: `WANDB="${wandb}"`, WANDB in the command
  // text `cmd`, cmd on the launch.
  std::vector<std::pair<int, int>> ranges;
  for (int level = 0; level < 3; ++level) {
    ranges.clear();
    for (const auto& a : m.assignments) {
      if (through.count(a.name) != 0 && a.value_offset >= 0 && a.value_end > a.value_offset) {
        ranges.emplace_back(a.value_offset, a.value_end);
      }
    }
    for (const auto& h : m.heredocs) {
      // `read -r -d '' cmd <<EOF`: the body is cmd's value.
      const auto line_begin = m.text.rfind('\n', static_cast<std::size_t>(std::max(0, h.first - 2)));
      const std::size_t from = line_begin == std::string::npos ? 0 : line_begin + 1;
      const std::string opener = m.text.substr(from, static_cast<std::size_t>(h.first) - from);
      for (const std::string& name : through) {
        if (opener.find("read ") != std::string::npos && opener.find(" " + name + " ") != std::string::npos) {
          ranges.push_back(h);
        }
      }
    }
    for (const auto* uses : {&m.uses, &m.heredoc_uses}) {
      for (const auto& u : *uses) {
        if (std::any_of(ranges.begin(), ranges.end(),
                        [&](const auto& r) { return u.offset >= r.first && u.offset < r.second; })) {
          through.insert(u.name);
        }
      }
    }
  }
  const Command& launch = m.commands[static_cast<std::size_t>(l->command)];
  std::vector<const VarUse*> unset;
  std::set<std::string> set_names;
  std::set<std::string> unset_names;
  for (const auto* uses : {&m.uses, &m.heredoc_uses}) {
    for (const auto& u : *uses) {
      const bool on_launch = u.offset >= launch.begin && u.offset < launch.end;
      const bool in_value = std::any_of(ranges.begin(), ranges.end(),
                                        [&](const auto& r) { return u.offset >= r.first && u.offset < r.second; });
      if ((!on_launch && !in_value) || u.offset < 0 || !u.batch_shell || positional(u.name) || special(u.name)
          || m.in_function(u.offset) || passed_on(u)) {
        continue;
      }
      if (assigned.count(u.name) != 0) {
        set_names.insert(u.name);
      } else if (!environment_name(u.name) && handled.count(u.name) == 0 && !loop_variable(u.name)
                 && value_position(u) && unset_names.insert(u.name).second) {
        unset.push_back(&u);
      }
    }
  }
  if (set_names.size() < 3 || unset.empty() || unset.size() > 2) {
    return;
  }
  for (const VarUse* u : unset) {
    c.add(Severity::warning, "audit.unset_variable",
          fmt::format("${} is never set in the script, which sets the {} other variables its launch uses: unless "
                      "the submitting shell exports it, it expands to nothing here (a `key=` override gets an "
                      "empty value, `--flag ${}` takes the next word or stops the parser)",
                      u->name, set_names.size(), u->name),
          fmt::format("set {} in the script, or make the dependence explicit: {}=\"${{{}:?export {} before "
                      "sbatch}}\"",
                      u->name, u->name, u->name, u->name),
          u->offset);
  }
}

}  // namespace

void unset_variable_findings(FindingContext& context)
{
  unset_variables(context);
}

}  // namespace lg::audit::detail
