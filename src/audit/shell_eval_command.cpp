// The evaluator's per-command dispatch and the `bash -c` sub-scripts.
#include "audit/shell_eval.hpp"

#include "audit/job_from_script.hpp"

#include "audit/shell_condition.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace lg::audit::detail {

namespace {

std::string plain_word(const RawWord& word)
{
  if (word.parts.size() == 1 && word.parts[0].kind == PartKind::literal && !word.parts[0].quoted) {
    return word.parts[0].text.text;
  }
  return {};
}

bool skip_keyword(const std::string& word)
{
  return word == "if" || word == "then" || word == "else" || word == "elif" || word == "do"
         || word == "while" || word == "until" || word == "!" || word == "time" || word == "{"
         || word == "}" || word == "fi" || word == "done" || word == "esac";
}

bool is_declare(const std::string& word)
{
  return word == "export" || word == "declare" || word == "typeset" || word == "local"
         || word == "readonly";
}

} // namespace

// Block nesting from the leading keywords (the lexer splits at ';' and
// newlines, so `if c; then x; fi` arrives as "if c", "then x", "fi"), and a
// trailing `{` (a function body or a group).
void Evaluator::track_blocks(const RawCommand& raw)
{
  m_condition = false;
  m_negated = false;
  // `name() {`: the lexer ends the command `name` at '(' and reads `{` next.
  const bool header = m_function_header;
  if (!raw.words.empty()) {
    m_function_header = raw.terminator == "(" && raw.words.size() == 1 && !plain_word(raw.words[0]).empty();
  }
  std::size_t i = 0;
  for (; i < raw.words.size(); ++i) {
    const std::string kw = plain_word(raw.words[i]);
    if (kw == "fi" || kw == "done" || kw == "esac" || kw == "}") {
      m_blocks = m_blocks > 0 ? m_blocks - 1 : 0;
      if (!m_open.empty()) {
        if (m_open.back().function) {
          m_model.function_bodies.emplace_back(m_open.back().begin, raw.end);
        }
        m_open.pop_back();
      }
    } else if (kw == "if" || kw == "for" || kw == "while" || kw == "until" || kw == "case" || kw == "select"
               || kw == "{") {
      ++m_blocks;
      m_open.push_back(Block{kw == "if", dead(), dead(), false, std::nullopt, kw == "{" && header && i == 0,
                             raw.begin});
      m_condition = kw == "if";
    } else if (kw == "then" || kw == "else" || kw == "elif") {
      enter_branch(kw);
    } else if (kw == "!") {
      m_negated = m_condition && !m_negated;
    } else if (kw != "do" && kw != "function") {
      break;
    }
  }
  m_command_depth = m_blocks;
  if (i < raw.words.size() && raw.words.size() > 1 && plain_word(raw.words.back()) == "{") {
    ++m_blocks;
    m_open.push_back(
      Block{false, dead(), dead(), false, std::nullopt, header || plain_word(raw.words[0]) == "function", raw.begin});
  }
}

// `then`: the branch runs unless its condition is known false or an earlier
// branch was known taken; `elif`: its condition is read only if no earlier
// branch was taken; `else`: runs unless one was.
void Evaluator::enter_branch(const std::string& keyword)
{
  if (m_open.empty() || !m_open.back().is_if) {
    return;
  }
  Block& b = m_open.back();
  if (keyword == "then") {
    const bool runs = !b.taken && b.condition != false;
    b.dead = b.parent_dead || !runs;
    b.taken = b.taken || b.condition == true;
  } else if (keyword == "elif") {
    b.dead = b.parent_dead || b.taken;
    b.condition = std::nullopt;
    m_condition = true;
  } else {
    b.dead = b.parent_dead || b.taken;
  }
}

void Evaluator::command(const RawCommand& raw)
{
  track_blocks(raw);
  if (dead()) {
    m_model.dead_commands.emplace_back(raw.begin, raw.end);  // a branch the script's own values never take
    return;
  }
  std::size_t idx = 0;
  while (idx < raw.words.size()) {
    const std::string kw = plain_word(raw.words[idx]);
    if (kw == "for" || kw == "case" || kw == "select" || kw == "function") {
      return;
    }
    if (!skip_keyword(kw)) {
      break;
    }
    ++idx;
  }
  if (idx >= raw.words.size()) {
    return;
  }
  const int ci = add_command(raw);
  if (raw.heredoc && !raw.heredoc_quoted) {
    record_heredoc_uses(*raw.heredoc, ci);
  }
  std::vector<Assignment> prefix;
  bool append = false;
  while (idx < raw.words.size() && assignment_prefix(raw.words[idx], append) > 0) {
    prefix.push_back(make_assignment(raw.words[idx], ci));
    ++idx;
  }
  if (idx >= raw.words.size()) {
    for (auto& a : prefix) {
      apply(std::move(a), false);
    }
    return;
  }
  const std::string name = plain_word(raw.words[idx]);
  if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0])) != 0
      && name.find_first_not_of("0123456789.,:") == std::string::npos) {
    for (const auto& a : prefix) {
      const auto after = static_cast<std::size_t>(a.offset) + a.name.size() + 1;
      if (a.offset >= 0 && (a.value.empty() || a.value.front().text().empty()) && after < m_model.text.size()
          && (m_model.text[after] == ' ' || m_model.text[after] == '\t')) {
        m_model.spaced_assignments.push_back(ScriptModel::SpacedAssignment{a.offset, a.name, name});
      }
    }
  }
  if (is_declare(name)) {
    declare(raw, idx + 1, name, ci);
    return;
  }
  if (name == "source" || name == ".") {
    m_model.sources.push_back(raw.begin);
    return;
  }
  if (name == "read" && raw.heredoc && read_heredoc(raw, idx + 1, ci)) {
    return;
  }
  std::vector<Word> words = expand_all(raw, idx, ci);
  record_builtin_prefix(prefix, name);
  // Only a condition that ends at `; then` or a line end is one test
  // (`[ a ] || [ b ]` is not decided from its first part).
  if (m_condition && !m_open.empty()) {
    auto& condition = m_open.back().condition;
    condition = raw.terminator == ";" || raw.terminator == "\n" ? static_condition(words) : std::nullopt;
    if (condition && m_negated) {
      condition = !*condition;
    }
  }
  if (words.empty()) {
    return;
  }
  if (words[0].text() == "unset") {
    unset(words, ci);
  } else if (words[0].text() == "set") {
    set_options(words, raw.begin);
  }
  m_model.commands[static_cast<std::size_t>(ci)].words = words;
  const SubScriptFn hook = [this](const Word& text) { return run_sub(text, false); };
  // A heredoc on its standard input: the body as one text. Unquoted
  // (`<<EOF`), the batch shell expands it first (bash(1), "Here Documents"),
  // so it is read with the batch shell's variables; quoted (`<<'EOF'`), as
  // written, like bash -c '…'.
  std::optional<StdinScript> stdin_script;
  if (raw.heredoc) {
    stdin_script.emplace();
    stdin_script->text.value = *raw.heredoc;
    stdin_script->text.offset = raw.heredoc->first_offset();
    const bool expanded = !raw.heredoc_quoted;
    stdin_script->read = [this, expanded](const Word& text) { return run_sub(text, expanded); };
  }
  std::optional<Launch> launch = parse_launch(words, hook, stdin_script ? &*stdin_script : nullptr);
  if (!launch && words[0].text() == "eval" && words.size() > 1) {
    launch = eval_launch(words, hook);
  }
  if (launch) {
    launch->command = ci;
    for (auto& a : prefix) {
      a.prefix = true;
      a.exported = true;
      launch->env.insert(launch->env.begin(), a);
    }
    m_model.launches.push_back(std::move(*launch));
  }
}

// `eval WORDS`: bash joins the words with spaces and runs the result as a
// command of this same shell (bash(1), SHELL BUILTIN COMMANDS, eval), so
// `cmd="torchrun … pretrain_gpt.py …"; eval $cmd` launches what the text
// says, read with the batch shell's variables. A part the script cannot read
// keeps its source text (`${ARGS[@]}` set in a branch), which the reading
// below finds unknown again.
std::optional<Launch> Evaluator::eval_launch(const std::vector<Word>& words, const SubScriptFn& hook)
{
  Word joined;
  joined.offset = words[1].offset;
  for (std::size_t i = 1; i < words.size(); ++i) {
    if (i > 1) {
      joined.value.append(' ', -1);
    }
    joined.value.append(words[i].value);
  }
  const SubScript sub = run_sub(joined, true);
  if (!sub.found) {
    return std::nullopt;
  }
  auto launch = parse_launch(sub.words, hook);
  if (launch) {
    launch->env.insert(launch->env.begin(), sub.env.begin(), sub.env.end());
  }
  return launch;
}

// `read -r -d '' NAME <<EOF … EOF`: with an empty delimiter read takes the
// whole body into NAME (bash(1), SHELL BUILTIN COMMANDS, read: "-d delim
// … continue until the first character of delim is read", and '' is NUL, which
// a heredoc does not hold), so NAME holds a command text that `bash -c
// "$NAME"` or `eval "$NAME"` runs later. An unquoted delimiter's body is
// expanded first (bash(1), "Here Documents"): it is read as a double-quoted
// string whose backslashes quote only `$`, `` ` ``, `\` and the newline; a
// quoted one's is the text as written. Any other read (a delimiter, several
// names) is not followed. True when NAME was assigned.
bool Evaluator::read_heredoc(const RawCommand& raw, std::size_t from, int command)
{
  bool whole = false;
  const RawWord* name = nullptr;
  for (std::size_t i = from; i < raw.words.size(); ++i) {
    const std::string w = plain_word(raw.words[i]);
    if (w == "-d" || w == "-rd") {
      const bool empty =
        i + 1 < raw.words.size()
        && std::all_of(raw.words[i + 1].parts.begin(), raw.words[i + 1].parts.end(),
                       [](const Part& p) { return p.kind == PartKind::literal && p.text.text.empty(); });
      if (!empty) {
        return false;  // a delimiter other than '' reads one piece only
      }
      whole = true;
      ++i;
    } else if (w == "-r") {
      continue;
    } else if (w.starts_with("-") || name != nullptr || w.empty() || !name_start(w[0])) {
      return false;
    } else {
      name = &raw.words[i];
    }
  }
  if (!whole || name == nullptr) {
    return false;
  }
  const Text& body = *raw.heredoc;
  Text source;
  const std::string assign = plain_word(*name) + "=";
  for (char c : assign) {
    source.append(c, -1);
  }
  const char quote = raw.heredoc_quoted ? '\'' : '"';
  source.append(quote, -1);
  for (std::size_t i = 0; i < body.text.size(); ++i) {
    const char c = body.text[i];
    const int at = body.offsets[i];
    if (raw.heredoc_quoted) {
      if (c == '\'') {
        for (char q : std::string("'\\''")) {
          source.append(q, -1);  // close, an escaped quote, reopen
        }
      } else {
        source.append(c, at);
      }
    } else if (c == '\\' && i + 1 < body.text.size() && body.text[i + 1] == '"') {
      source.append('\\', -1);  // a heredoc's \" is two characters
      source.append('\\', at);
      source.append('\\', -1);
      source.append('"', body.offsets[i + 1]);
      ++i;
    } else if (c == '\\' && i + 1 < body.text.size()) {
      source.append(c, at);  // \$ \` \\ \newline quote as in "…"; any other \ stays
      source.append(body.text[i + 1], body.offsets[i + 1]);
      ++i;
    } else if (c == '"') {
      source.append('\\', -1);
      source.append(c, at);
    } else {
      source.append(c, at);
    }
  }
  source.append(quote, -1);
  const LexResult lexed = lex(source, 1);
  if (lexed.commands.size() != 1 || lexed.commands.front().words.size() != 1) {
    return false;
  }
  Assignment a = make_assignment(lexed.commands.front().words.front(), command);
  a.offset = name->begin;
  a.value_offset = body.first_offset();
  if (!a.value.empty()) {
    a.value.front().offset = a.value_offset;
  }
  apply(std::move(a), false);
  return true;
}

// The body of an unquoted heredoc (`cat > env.sh <<EOF`) goes through
// parameter expansion, command substitution and arithmetic expansion before
// the command reads it; `\` quotes `$`, `` ` ``, `\` and the newline (bash
// manual, "Here Documents"). Each `$NAME`/`${NAME…}` there is the batch
// shell reading NAME, even when the command treats the text as data.
void Evaluator::record_heredoc_uses(const Text& body, int command)
{
  const std::string& t = body.text;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '\\') {
      ++i;  // \$NAME stays text
      continue;
    }
    if (t[i] != '$' || i + 1 >= t.size()) {
      continue;
    }
    std::size_t at = i + 1;
    const bool braced = t[at] == '{';
    if (braced) {
      ++at;
      if (at < t.size() && (t[at] == '#' || t[at] == '!')) {
        ++at;  // ${#NAME}, ${!NAME}
      }
    }
    std::size_t end = at;
    if (end < t.size() && std::isdigit(static_cast<unsigned char>(t[end])) != 0) {
      ++end;  // $1: one digit unbraced
      while (braced && end < t.size() && std::isdigit(static_cast<unsigned char>(t[end])) != 0) {
        ++end;
      }
    } else {
      while (end < t.size() && (std::isalnum(static_cast<unsigned char>(t[end])) != 0 || t[end] == '_')) {
        ++end;
      }
    }
    if (end == at || body.offsets[i] < 0) {
      continue;
    }
    const bool guarded = braced && end < t.size()
                         && (t[end] == ':' || t[end] == '-' || t[end] == '=' || t[end] == '+' || t[end] == '?');
    m_model.heredoc_uses.push_back(VarUse{t.substr(at, end - at), body.offsets[i], command, m_batch_shell, guarded});
    i = end - 1;
  }
}

void Evaluator::record_builtin_prefix(const std::vector<Assignment>& prefix, const std::string& name)
{
  static constexpr std::array<std::string_view, 8> k_builtins = {"cd", "echo", "true", ":", "pushd", "popd", "printf", "mkdir"};
  if (prefix.empty() || prefix.front().offset < 0
      || std::find(k_builtins.begin(), k_builtins.end(), name) == k_builtins.end()) {
    return;
  }
  ScriptModel::BuiltinPrefix p{prefix.front().offset, "", name};
  for (const auto& a : prefix) {
    p.names += (p.names.empty() ? "" : " ") + a.name;
  }
  m_model.builtin_prefixes.push_back(std::move(p));
}

SubScript Evaluator::run_sub(const Word& text, bool batch_expanded)
{
  SubScript out;
  if (m_depth >= 3) {
    return out;
  }
  Variables exported;
  for (const auto& [name, var] : m_vars) {
    if (var.exported || batch_expanded) {
      exported.emplace(name, var);
    }
  }
  ScriptModel scratch;
  Evaluator child(scratch, std::move(exported), batch_expanded, m_template, m_depth + 1);
  child.run(lex(text.value, 1));
  for (const auto& use : scratch.uses) {
    if (use.offset >= 0) {  // not a batch-shell expansion seen again
      m_model.uses.push_back(use);
    }
  }
  for (const auto& use : scratch.heredoc_uses) {
    if (use.offset >= 0) {
      m_model.heredoc_uses.push_back(use);
    }
  }
  m_model.builtin_prefixes.insert(m_model.builtin_prefixes.end(), scratch.builtin_prefixes.begin(),
                                  scratch.builtin_prefixes.end());
  if (scratch.launches.empty()) {
    return out;
  }
  // The training among the string's launches, read as the script's own
  // (training_launch): `bash -c '… python -c "import torch; …"; accelerate
  // launch … train.py'` trains with the second (held-out round 28's Leonardo
  // template, whose launch was taken as the one-line check).
  const Launch& inner = *training_launch(scratch);
  out.found = true;
  for (int offset : scratch.sources) {
    out.sourced = out.sourced || offset < scratch.commands[static_cast<std::size_t>(inner.command)].begin;
  }
  out.words = scratch.commands[static_cast<std::size_t>(inner.command)].words;
  for (const auto& a : scratch.assignments) {
    if (a.command < inner.command && a.exported && a.kind != AssignKind::unset) {
      Assignment copy = a;
      copy.prefix = true;
      out.env.push_back(std::move(copy));
    }
  }
  for (const auto& a : inner.env) {
    if (a.prefix) {
      out.env.push_back(a);
    }
  }
  return out;
}

} // namespace lg::audit::detail
