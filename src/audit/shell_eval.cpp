// The evaluator (shell_eval.hpp): one pass over the commands in script order.
// Control flow is not followed: a variable's value is the last one assigned
// above the point of use, whichever branch assigned it.
#include "audit/shell_eval.hpp"

#include <algorithm>


namespace lg::audit::detail {

namespace {

constexpr std::size_t k_max_items = 1 << 16;  // array elements kept per variable

// The text of a word made of one unquoted literal, or "".
std::string plain(const RawWord& word)
{
  if (word.parts.size() == 1 && word.parts[0].kind == PartKind::literal && !word.parts[0].quoted) {
    return word.parts[0].text.text;
  }
  return {};
}

// A shell name: letters, digits and underscores, not starting with a digit.
bool identifier_word(const std::string& text)
{
  return !text.empty() && name_start(text[0])
         && std::all_of(text.begin(), text.end(), [](char ch) { return name_char(ch); });
}

bool only_literals(const RawWord& word)
{
  for (const auto& part : word.parts) {
    if (part.kind != PartKind::literal) {
      return false;
    }
  }
  for (const auto& element : word.elements) {
    if (!only_literals(element)) {
      return false;
    }
  }
  return true;
}

void mark_template(std::vector<Word>& words, bool template_mode)
{
  if (!template_mode) {
    return;
  }
  for (auto& word : words) {
    if (word.text().find("{{") != std::string::npos) {
      word.known = false;
      word.opaque = true;
    }
  }
}

} // namespace

Evaluator::Evaluator(ScriptModel& model, Variables vars, bool batch_shell, bool template_mode, int depth)
  : m_model(model),
    m_vars(std::move(vars)),
    m_batch_shell(batch_shell),
    m_template(template_mode),
    m_depth(depth)
{
}

void Evaluator::run(const LexResult& lexed)
{
  for (const auto& raw : lexed.commands) {
    command(raw);
  }
}

int Evaluator::add_command(const RawCommand& raw)
{
  Command command;
  command.begin = raw.begin;
  command.end = raw.end;
  command.terminator = raw.terminator;
  command.depth = m_command_depth;
  const ExpandContext context{m_vars, nullptr, -1, m_batch_shell, 0, nullptr};
  for (const auto& target : raw.outputs) {
    command.outputs.push_back(expand_one(target, context));
  }
  m_model.commands.push_back(std::move(command));
  return static_cast<int>(m_model.commands.size()) - 1;
}

Assignment Evaluator::make_assignment(const RawWord& word, int command)
{
  bool append = false;
  const std::size_t name_len = assignment_prefix(word, append);
  const std::size_t skip = name_len + (append ? 2 : 1);
  Assignment a;
  a.name = word.parts[0].text.text.substr(0, name_len);
  a.offset = word.begin;
  a.command = command;
  a.literal = only_literals(word);
  a.value_offset = word.begin >= 0 ? word.begin + static_cast<int>(skip) : -1;
  a.value_end = word.end;
  std::vector<std::pair<std::string, Word>> defaults;
  const ExpandContext context{m_vars, &m_model.uses, command, m_batch_shell, 0, &defaults};
  if (word.array) {
    a.is_array = true;
    for (const auto& element : word.elements) {
      for (auto& w : expand(element, context, Split::yes)) {
        a.known = a.known && w.known;
        a.value.push_back(std::move(w));
      }
    }
  } else {
    RawWord rest = word;
    Text& first = rest.parts[0].text;
    first.text.erase(0, skip);
    first.offsets.erase(first.offsets.begin(), first.offsets.begin() + static_cast<std::ptrdiff_t>(skip));
    Word value = expand_one(rest, context);
    value.offset = a.value_offset;
    a.known = value.known;
    a.value.push_back(std::move(value));
  }
  apply_defaults(defaults, command);
  mark_template(a.value, m_template);
  for (const auto& w : a.value) {
    a.known = a.known && w.known;
  }
  if (append) {
    const auto it = m_vars.find(a.name);
    if (it != m_vars.end()) {
      Var& var = it->second;
      if (a.is_array || var.is_array) {
        // The record keeps only the appended elements; the variable grows in
        // place (linear in the script, not quadratic).
        if (var.items.size() + a.value.size() <= k_max_items) {
          var.items.insert(var.items.end(), a.value.begin(), a.value.end());
        }
        var.is_array = true;
        var.offset = a.offset;
        a.is_array = true;
        a.append = true;
      } else if (!var.items.empty() && !a.value.empty()) {
        Word joined = var.items.front();
        if (joined.value.text.size() < (1U << 16)) {
          joined.value.append(a.value.front().value);
        }
        joined.known = joined.known && a.value.front().known;
        a.value.front() = std::move(joined);
      }
      a.known = a.known && var.known;
    }
  }
  return a;
}

// `: "${TP:=8}"`: each default an expansion assigned, as an assignment of
// its own (not literal: --fix never rewrites it). Inside an if/for/while
// block the branch may not run (`if big; then : "${TP:=8}"; else : "${TP:=4}"`):
// the variable is unknown after it, never the first branch's value.
void Evaluator::apply_defaults(std::vector<std::pair<std::string, Word>>& defaults, int command)
{
  for (auto& [name, value] : defaults) {
    Assignment a;
    a.name = name;
    a.offset = value.offset;
    a.command = command;
    a.known = value.known && m_command_depth == 0;
    a.value.push_back(std::move(value));
    const auto it = m_vars.find(name);
    const std::string assigned = name;
    apply(std::move(a), it != m_vars.end() && it->second.exported);
    if (m_command_depth > 0) {
      m_vars[assigned].known = false;
    }
  }
  defaults.clear();
}

void Evaluator::apply(Assignment assignment, bool export_it)
{
  Var& var = m_vars[assignment.name];
  if (!assignment.append) {
    var.items = assignment.value;
    var.is_array = assignment.is_array;
  }
  // Unknown parts stay marked in the items (and inside a string's text), so
  // the known items of an array are still used.
  var.known = true;
  // `if command -v srun …; then …; else SLURM_NNODES=1; fi`: a SLURM_* name
  // assigned inside a block is a fallback for running outside Slurm, where
  // Slurm does not set it; in the job Slurm's value stands. After the block
  // the value is not known (held-out round 29's CMU job, whose torchrun
  // --nnodes $SLURM_NNODES was read as the else branch's 1).
  if (m_command_depth > 0 && assignment.name.starts_with("SLURM_")) {
    var.known = false;
  }
  var.exported = var.exported || export_it || m_allexport;
  var.offset = assignment.offset;
  assignment.exported = var.exported;
  m_model.assignments.push_back(std::move(assignment));
}

void Evaluator::declare(const RawCommand& raw, std::size_t from, const std::string& builtin, int command)
{
  bool export_it = builtin == "export";
  for (std::size_t i = from; i < raw.words.size(); ++i) {
    const RawWord& word = raw.words[i];
    const std::string flag = plain(word);
    if (!flag.empty() && (flag[0] == '-' || flag[0] == '+')) {
      if (flag.find('f') != std::string::npos || flag.find('p') != std::string::npos) {
        return;
      }
      if (flag.find('x') != std::string::npos) {
        export_it = flag[0] == '-';
      }
      if (builtin == "export" && flag.find('n') != std::string::npos) {
        export_it = false;
      }
      continue;
    }
    bool append = false;
    if (assignment_prefix(word, append) > 0) {
      apply(make_assignment(word, command), export_it);
      continue;
    }
    // `export /=/path`: bash says "`/=/path': not a valid identifier",
    // returns 1 and sets nothing (bash(1), "DEFINITIONS": a name is letters,
    // digits and underscores, not starting with a digit). Subscripts
    // (`a[1]=x`) are left alone.
    if (const std::string text = plain(word); !text.empty() && text.find('[') == std::string::npos
                                               && !identifier_word(text.substr(0, text.find('=')))) {
      m_model.invalid_names.emplace_back(word.begin, text);
      continue;
    }
    if (!export_it || !plain(word).size()) {
      continue;
    }
    Assignment a;
    a.name = plain(word);
    a.kind = AssignKind::export_only;
    a.offset = word.begin;
    a.command = command;
    const auto it = m_vars.find(a.name);
    a.known = it != m_vars.end() && it->second.known;
    if (it != m_vars.end()) {
      a.value = it->second.items;
      a.is_array = it->second.is_array;
      it->second.exported = true;
    }
    a.exported = true;
    m_model.assignments.push_back(std::move(a));
  }
}

void Evaluator::unset(const std::vector<Word>& words, int command)
{
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::string& name = words[i].text();
    if (name == "-f") {
      return;
    }
    if (name.starts_with("-")) {
      continue;
    }
    m_vars.erase(name);
    Assignment a;
    a.name = name;
    a.kind = AssignKind::unset;
    a.offset = words[i].offset;
    a.command = command;
    a.literal = true;
    m_model.assignments.push_back(std::move(a));
  }
}

void Evaluator::set_options(const std::vector<Word>& words, int offset)
{
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::string& t = words[i].text();
    if (t == "--" || t.empty() || (t[0] != '-' && t[0] != '+')) {
      return;
    }
    const bool on = t[0] == '-';
    if ((t == "-o" || t == "+o") && i + 1 < words.size()) {
      const std::string& option = words[++i].text();
      if (option == "xtrace") {
        m_model.xtrace.emplace_back(offset, on);
      } else if (option == "allexport") {
        m_allexport = on;
      }
      continue;
    }
    if (t.find('x') != std::string::npos && m_batch_shell) {
      m_model.xtrace.emplace_back(offset, on);
    }
    if (t.find('a') != std::string::npos) {
      m_allexport = on;
    }
  }
}

std::vector<Word> Evaluator::expand_all(const RawCommand& raw, std::size_t from, int command)
{
  std::vector<std::pair<std::string, Word>> defaults;
  const ExpandContext context{m_vars, &m_model.uses, command, m_batch_shell, 0, &defaults};
  std::vector<Word> out;
  for (std::size_t i = from; i < raw.words.size(); ++i) {
    for (auto& w : expand(raw.words[i], context, Split::yes)) {
      out.push_back(std::move(w));
    }
  }
  apply_defaults(defaults, command);
  mark_template(out, m_template);
  return out;
}

} // namespace lg::audit::detail
