// Word expansion over the static variable environment (expand.hpp).
#include "audit/expand.hpp"

#include <cctype>

namespace lg::audit::detail {

namespace {

// Bounds that keep self-doubling assignments (A="$A$A") linear.
constexpr std::size_t k_max_word = 1 << 16;
constexpr std::size_t k_max_words = 1 << 16;

bool is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n';
}

struct Resolved
{
  std::vector<Word> items;
  bool known = true;
};

std::string display(const Part& part)
{
  if (part.kind == PartKind::command) {
    return "$(" + part.text.text + ")";
  }
  if (part.kind == PartKind::arith) {
    return "$((" + part.text.text + "))";
  }
  return "${" + part.name + (part.index.empty() ? "" : "[" + part.index + "]") + "}";
}

// The default word of ${VAR:-word}, expanded without splitting.
Resolved expand_arg(const Part& part, const ExpandContext& context)
{
  Resolved out;
  if (context.depth > 4) {
    out.known = false;
    return out;
  }
  ExpandContext inner{context.vars, context.uses, context.command, context.batch_shell, context.depth + 1, context.defaults};
  std::vector<Word> words;
  for (const auto& command : lex(part.arg, context.depth + 1).commands) {
    for (const auto& raw : command.words) {
      words.push_back(expand_one(raw, inner));
    }
  }
  Word joined = join_words(words);
  out.known = joined.known;
  out.items.push_back(std::move(joined));
  return out;
}

// `${NAME:=default}`: bash assigns the default to NAME as it expands it
// (bash(1), Parameter Expansion), so later lines see the value.
Resolved assign_default(const Part& part, Resolved value, const ExpandContext& context)
{
  if ((part.op == ":=" || part.op == "=") && context.defaults != nullptr && part.index.empty() && !value.items.empty()) {
    Word assigned = value.items.front();
    assigned.offset = part.offset;
    context.defaults->emplace_back(part.name, std::move(assigned));
  }
  return value;
}

std::vector<Word> select(const Var& var, const std::string& index)
{
  if (index == "@" || index == "*") {
    return var.items;
  }
  std::size_t k = 0;
  if (!index.empty()) {
    if (index.find_first_not_of("0123456789") != std::string::npos || index.size() > 6) {
      return {};
    }
    k = static_cast<std::size_t>(std::stoul(index));
  }
  if (k < var.items.size()) {
    return {var.items[k]};
  }
  return {};
}

bool empty_value(const std::vector<Word>& items)
{
  for (const auto& item : items) {
    if (!item.text().empty()) {
      return false;
    }
  }
  return true;
}

Resolved resolve(const Part& part, const ExpandContext& context)
{
  Resolved out;
  const auto it = context.vars.find(part.name);
  const bool special = !name_start(part.name.empty() ? '0' : part.name[0]);
  if (special || part.op == "len" || part.op == "other") {
    out.known = false;
    return out;
  }
  if (it == context.vars.end()) {
    if (part.op == ":-" || part.op == "-" || part.op == ":=" || part.op == "=") {
      return assign_default(part, expand_arg(part, context), context);
    }
    out.known = false;
    return out;
  }
  const Var& var = it->second;
  if (!var.known) {
    out.known = false;
    return out;
  }
  std::vector<Word> value = select(var, part.index);
  const bool empty = empty_value(value);
  if ((part.op == ":-" || part.op == ":=") && empty) {
    return assign_default(part, expand_arg(part, context), context);
  }
  if (part.op == ":+" || part.op == "+") {
    return empty && part.op == ":+" ? out : expand_arg(part, context);
  }
  out.items = std::move(value);
  return out;
}

class Expander
{
public:
  Expander(const ExpandContext& context, Split split)
    : m_context(context),
      m_split(split)
  {
  }

  std::vector<Word> run(const RawWord& word);

private:
  void flush()
  {
    if (m_started) {
      for (int o : m_cur.value.offsets) {
        if (o >= 0 || o <= -2) {
          m_cur.offset = o >= 0 ? o : -(o + 2);
          break;
        }
      }
      m_out.push_back(std::move(m_cur));
    }
    m_cur = Word{};
    m_started = false;
  }
  void append_split(const Word& item);
  void param(const Part& part);
  void arith_uses(const Part& part);
  void unknown(const Part& part);

  const ExpandContext& m_context;
  Split m_split;
  std::vector<Word> m_out;
  Word m_cur;
  bool m_started = false;
};

void Expander::append_split(const Word& item)
{
  const Text& t = item.value;
  if (m_out.size() > k_max_words || m_cur.value.text.size() + t.text.size() > k_max_word) {
    m_cur.known = false;  // runaway growth: stop copying
    m_cur.opaque = true;
    m_started = true;
    return;
  }
  for (std::size_t i = 0; i < t.text.size(); ++i) {
    // A space inside an unknown expansion's text (`$(srun … hostname -I | awk …)`
    // assigned to a variable) is how the audit displays it, not a word break
    // bash would see: the expansion is one opaque word of unknown count.
    if (is_space(t.text[i]) && t.offsets[i] > -2) {
      flush();
      continue;
    }
    m_cur.value.append(t.text[i], t.offsets[i]);
    if (t.offsets[i] <= -2) {
      m_cur.known = false;  // an unknown expansion inside the value
      m_cur.opaque = true;
      m_cur.list = m_cur.list || item.list;
    }
    m_started = true;
  }
}

void Expander::unknown(const Part& part)
{
  m_cur.known = false;
  // Unquoted, bash splits the value into an unknown number of words; an
  // array's "${NAME[@]}" is one word per element, quoted or not (bash(1),
  // Arrays): how many words, and which flags, is not known either way.
  const bool array = part.kind == PartKind::param && (part.index == "@" || part.index == "*");
  m_cur.list = m_cur.list || array;  // kept through an assignment: `ARGS="… ${A[@]}"` then $ARGS
  if (m_split == Split::yes && (part.quoted == false || array)) {
    m_cur.opaque = true;
  }
  const std::string shown = display(part);
  // Unknown characters remember where the expansion was written; one seen
  // again inside a `bash -c` text already carries such a marker.
  const int marker = part.offset <= -2 ? part.offset : -(part.offset < 0 ? 0 : part.offset) - 2;
  for (char c : shown) {
    m_cur.value.append(c, marker);
  }
  m_started = true;
}

// The variables `$((…))` reads: `$NAME`, `${NAME}` and bare names (bash(1),
// ARITHMETIC EVALUATION: "shell variables may also be referenced by name
// without using the parameter expansion syntax"), each a use where it is
// written, so the rules that judge uses (per-task, unset, set only by an
// option) see `$((SLURM_NNODES * SLURM_GPUS_PER_NODE))` too.
void Expander::arith_uses(const Part& part)
{
  if (m_context.uses == nullptr) {
    return;
  }
  const std::string& t = part.text.text;
  auto name_char = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_'; };
  for (std::size_t i = 0; i < t.size();) {
    const bool starts = (std::isalpha(static_cast<unsigned char>(t[i])) != 0 || t[i] == '_')
                        && (i == 0 || !name_char(t[i - 1]));
    if (!starts) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < t.size() && name_char(t[j])) {
      ++j;
    }
    // `${NAME:-1}` inside: a default handles the unset case.
    const bool guarded = i >= 2 && t[i - 1] == '{' && t[j < t.size() ? j : t.size() - 1] == ':';
    const int offset = i < part.text.offsets.size() ? part.text.offsets[i] : part.offset;
    const int at = i > 0 && (t[i - 1] == '$' || t[i - 1] == '{') && i - 1 < part.text.offsets.size()
                     ? part.text.offsets[t[i - 1] == '{' && i >= 2 ? i - 2 : i - 1]
                     : offset;
    m_context.uses->push_back(VarUse{t.substr(i, j - i), at, m_context.command, m_context.batch_shell, guarded});
    i = j;
  }
}

void Expander::param(const Part& part)
{
  if (m_context.uses != nullptr) {
    const bool guarded = part.op == ":-" || part.op == "-" || part.op == ":=" || part.op == "=" || part.op == ":+"
                         || part.op == "+" || part.op == ":?" || part.op == "?";
    m_context.uses->push_back(VarUse{part.name, part.offset, m_context.command, m_context.batch_shell, guarded});
  }
  m_cur.expanded.push_back(part.name);
  const Resolved r = resolve(part, m_context);
  if (!r.known) {
    unknown(part);
    return;
  }
  const bool all = part.index == "@";
  for (std::size_t k = 0; k < r.items.size(); ++k) {
    const Word& item = r.items[k];
    if (!part.quoted && m_split == Split::yes) {
      if (k > 0) {
        flush();
      }
      append_split(item);
      continue;
    }
    if (k > 0 && all) {
      flush();
    } else if (k > 0) {
      m_cur.value.append(' ', -1);
    }
    m_cur.known = m_cur.known && item.known;
    m_cur.opaque = m_cur.opaque || item.opaque;
    m_cur.list = m_cur.list || item.list;
    if (m_cur.value.text.size() + item.value.text.size() > k_max_word) {
      m_cur.known = false;  // runaway growth (A="$A$A" …): stop copying
      continue;
    }
    m_cur.value.append(item.value);
    m_started = true;
  }
  if (part.quoted) {
    m_started = true;
  }
}

std::vector<Word> Expander::run(const RawWord& word)
{
  m_cur.offset = word.begin;
  for (const auto& part : word.parts) {
    if (part.kind == PartKind::literal) {
      m_cur.value.append(part.text);
      m_started = true;
    } else if (part.kind == PartKind::param) {
      param(part);
    } else if (part.kind == PartKind::arith) {
      arith_uses(part);
      if (auto v = arithmetic(part.text.text, m_context.vars)) {
        for (char c : std::to_string(*v)) {
          m_cur.value.append(c, part.offset);
        }
        m_started = true;
      } else {
        unknown(part);
      }
    } else {
      unknown(part);
    }
  }
  flush();
  return std::move(m_out);
}

} // namespace

std::vector<Word> expand(const RawWord& word, const ExpandContext& context, Split split)
{
  Expander expander(context, split);
  return expander.run(word);
}

Word expand_one(const RawWord& word, const ExpandContext& context)
{
  std::vector<Word> words = expand(word, context, Split::no);
  Word out = join_words(words);
  out.offset = word.begin;
  return out;
}

Word join_words(const std::vector<Word>& items)
{
  Word out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) {
      out.value.append(' ', -1);
    }
    out.value.append(items[i].value);
    out.known = out.known && items[i].known;
    out.opaque = out.opaque || items[i].opaque;
    out.list = out.list || items[i].list;
    out.expanded.insert(out.expanded.end(), items[i].expanded.begin(), items[i].expanded.end());
  }
  out.offset = items.empty() ? -1 : items.front().offset;
  return out;
}

} // namespace lg::audit::detail
