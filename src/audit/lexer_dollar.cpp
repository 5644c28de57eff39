// The lexer's $-expansions, backquotes, operators, redirections, arrays and
// heredocs (see lexer_impl.hpp). Every scan runs forward from the current
// position and the main loop resumes after it.
#include "audit/lexer_impl.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace lg::audit::detail {

namespace {

bool is_digit(char c)
{
  return c >= '0' && c <= '9';
}

// Index of the closing `quote` after `from`, honouring backslashes for '"'.
std::size_t skip_quoted(const std::string& s, std::size_t from, char quote)
{
  for (std::size_t i = from + 1; i < s.size(); ++i) {
    if (quote == '"' && s[i] == '\\') {
      ++i;
    } else if (s[i] == quote) {
      return i;
    }
  }
  return s.size();
}

} // namespace

std::size_t Lexer::matching_paren(std::size_t open) const
{
  const std::string& s = m_src.text;
  int depth = 0;
  for (std::size_t i = open; i < m_n; ++i) {
    const char c = s[i];
    if (c == '\\') {
      ++i;
    } else if (c == '\'' || c == '"') {
      i = skip_quoted(s, i, c);
    } else if (c == '#' && i > open && (s[i - 1] == ' ' || s[i - 1] == '\t' || s[i - 1] == '\n')) {
      const auto eol = s.find('\n', i);
      i = eol == std::string::npos ? m_n : eol;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')' && --depth == 0) {
      return i;
    }
  }
  return m_n;
}

std::size_t Lexer::matching_brace(std::size_t open) const
{
  const std::string& s = m_src.text;
  int depth = 0;
  for (std::size_t i = open; i < m_n; ++i) {
    const char c = s[i];
    if (c == '\\') {
      ++i;
    } else if (c == '\'' || c == '"') {
      i = skip_quoted(s, i, c);
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      return i;
    }
  }
  return m_n;
}

void Lexer::dollar(bool quoted)
{
  const std::size_t start = m_pos;
  const char next = at(m_pos + 1);
  Part part;
  part.quoted = quoted;
  part.offset = off(start);
  if (next == '{') {
    const std::size_t close = matching_brace(m_pos + 1);
    part = parse_braced(slice(m_pos + 2, close), off(start), quoted);
    m_pos = close < m_n ? close + 1 : m_n;
  } else if (next == '(' && at(m_pos + 2) == '(') {
    const std::size_t close = matching_paren(m_pos + 1);
    part.kind = PartKind::arith;
    part.text = slice(m_pos + 3, close < m_n ? close - 1 : m_n);
    m_pos = close < m_n ? close + 1 : m_n;
  } else if (next == '(') {
    const std::size_t close = matching_paren(m_pos + 1);
    part.kind = PartKind::command;
    part.text = slice(m_pos + 2, close);
    m_pos = close < m_n ? close + 1 : m_n;
  } else if (next == '\'' && !quoted) {
    ansi_c_quoted();
    return;
  } else if (next == '"' && !quoted) {
    ++m_pos;
    double_quoted();
    return;
  } else if (name_start(next)) {
    std::size_t j = m_pos + 1;
    while (j < m_n && name_char(m_src.text[j])) {
      ++j;
    }
    part.kind = PartKind::param;
    part.name = m_src.text.substr(m_pos + 1, j - m_pos - 1);
    m_pos = j;
  } else if (next != '\0' && (is_digit(next) || std::strchr("@*#?$!-", next) != nullptr)) {
    part.kind = PartKind::param;
    part.name = std::string(1, next);
    m_pos += 2;
  } else {
    lit('$', m_pos, quoted);
    ++m_pos;
    return;
  }
  add_part(std::move(part), start);
}

void Lexer::ansi_c_quoted()
{
  start_word(m_pos);
  std::size_t i = m_pos + 2;
  while (i < m_n && m_src.text[i] != '\'') {
    if (m_src.text[i] == '\\' && i + 1 < m_n) {
      const char e = m_src.text[i + 1];
      const char mapped = e == 'n' ? '\n' : e == 't' ? '\t' : e;
      lit(mapped, i, true);
      i += 2;
    } else {
      lit(m_src.text[i], i, true);
      ++i;
    }
  }
  m_pos = i < m_n ? i + 1 : m_n;
}

void Lexer::backtick(bool quoted)
{
  const std::size_t start = m_pos;
  std::size_t i = m_pos + 1;
  while (i < m_n && m_src.text[i] != '`') {
    i += m_src.text[i] == '\\' ? 2 : 1;
  }
  Part part;
  part.kind = PartKind::command;
  part.quoted = quoted;
  part.offset = off(start);
  part.text = slice(m_pos + 1, i);
  m_pos = i < m_n ? i + 1 : m_n;
  add_part(std::move(part), start);
}

void Lexer::operators(char c)
{
  const char next = at(m_pos + 1);
  if (c == ';') {
    m_pos += next == ';' ? 2 : 1;
    finish_command(";");
  } else if (c == '&' && next == '&') {
    m_pos += 2;
    finish_command("&&");
  } else if (c == '&' && next == '>') {
    finish_word();
    m_pos += at(m_pos + 2) == '>' ? 3 : 2;
    m_redirect_target = true;
    m_redirect_out = true;
  } else if (c == '&') {
    ++m_pos;
    finish_command("&");
  } else if (next == '|' || next == '&') {
    m_pos += 2;
    finish_command(next == '|' ? "||" : "|");
  } else {
    ++m_pos;
    finish_command("|");
  }
}

void Lexer::redirect(char c)
{
  const char next = at(m_pos + 1);
  if (m_in_word && m_word.parts.size() == 1 && m_word.parts[0].kind == PartKind::literal
      && !m_word.parts[0].quoted
      && m_word.parts[0].text.text.find_first_not_of("0123456789") == std::string::npos) {
    m_in_word = false;  // an fd number: 2>&1
  }
  if (next == '(') {
    const std::size_t start = m_pos;
    const std::size_t close = matching_paren(m_pos + 1);
    Part part;
    part.kind = PartKind::command;
    part.offset = off(start);
    part.text = slice(m_pos + 2, close);
    m_pos = close < m_n ? close + 1 : m_n;
    add_part(std::move(part), start);
    return;
  }
  // `[ "$N" > 0 ]`: inside test brackets `>` and `<` still redirect (bash(1),
  // "SHELL GRAMMAR": redirections may appear anywhere in a simple command).
  const bool spaced = m_pos > 0 && (m_src.text[m_pos - 1] == ' ' || m_src.text[m_pos - 1] == '\t');
  finish_word();
  if (spaced && next != '&' && next != c && in_test_brackets()) {
    m_out.test_redirects.push_back(off(m_pos));
  }
  if (c == '<' && next == '<' && at(m_pos + 2) != '<') {
    const bool strip = at(m_pos + 2) == '-';
    m_pos += strip ? 3 : 2;
    read_heredoc_delimiter(strip);
    return;
  }
  const bool plain_in = c == '<' && next != '<' && std::strchr(">&|", next) == nullptr;
  m_redirect_in = plain_in ? off(m_pos) : -1;
  // `>FILE`, `>>FILE`, `>|FILE` write a file; `>&2` duplicates a descriptor.
  m_redirect_out = c == '>' && next != '&';
  m_pos += (c == '<' && next == '<') ? 3 : 1;
  if (m_pos < m_n && std::strchr(">&|", m_src.text[m_pos]) != nullptr) {
    ++m_pos;
  }
  m_redirect_target = true;
}

// The command read so far is `[ …` or `test …` (after if/elif/while/until/!)
// and its `]` has not come yet.
bool Lexer::in_test_brackets() const
{
  auto literal = [](const RawWord& w) {
    return w.parts.size() == 1 && w.parts[0].kind == PartKind::literal && !w.parts[0].quoted ? w.parts[0].text.text
                                                                                            : std::string();
  };
  std::size_t i = 0;
  while (i < m_cmd.words.size()) {
    const std::string kw = literal(m_cmd.words[i]);
    if (kw != "if" && kw != "elif" && kw != "while" && kw != "until" && kw != "!") {
      break;
    }
    ++i;
  }
  if (i >= m_cmd.words.size() || (literal(m_cmd.words[i]) != "[" && literal(m_cmd.words[i]) != "test")) {
    return false;
  }
  return std::none_of(m_cmd.words.begin() + static_cast<std::ptrdiff_t>(i) + 1, m_cmd.words.end(),
                      [&](const RawWord& w) { return literal(w) == "]"; });
}

void Lexer::open_paren()
{
  bool append = false;
  if (m_in_word && m_word.parts.size() == 1) {
    const std::size_t name = assignment_prefix(m_word, append);
    const std::string& t = m_word.parts[0].text.text;
    if (name > 0 && t.size() == name + (append ? 2 : 1)) {
      const std::size_t close = matching_paren(m_pos);
      if (m_depth < k_max_depth) {
        for (auto& command : lex(slice(m_pos + 1, close), m_depth + 1).commands) {
          for (auto& word : command.words) {
            m_word.elements.push_back(std::move(word));
          }
        }
      }
      m_word.array = true;
      m_word.end = off(close < m_n ? close : m_n - 1) + 1;
      m_pos = close < m_n ? close + 1 : m_n;
      return;
    }
  }
  if (!m_in_word && m_cmd.words.empty() && at(m_pos + 1) == '(') {
    const std::size_t close = matching_paren(m_pos);  // (( arithmetic )): skipped
    m_pos = close < m_n ? close + 1 : m_n;
    return;
  }
  finish_command("(");
  ++m_pos;
}

void Lexer::read_heredoc_delimiter(bool strip_tabs)
{
  while (m_pos < m_n && (m_src.text[m_pos] == ' ' || m_src.text[m_pos] == '\t')) {
    ++m_pos;
  }
  std::string delimiter;
  bool quoted = false;
  while (m_pos < m_n && std::strchr(" \t\n;&|<>()", m_src.text[m_pos]) == nullptr) {
    const char c = m_src.text[m_pos];
    quoted = quoted || c == '\'' || c == '"' || c == '\\';
    if (c == '\'' || c == '"') {
      const std::size_t close = skip_quoted(m_src.text, m_pos, c);
      delimiter += m_src.text.substr(m_pos + 1, std::min(close, m_n) - m_pos - 1);
      m_pos = close < m_n ? close + 1 : m_n;
    } else if (c == '\\' && m_pos + 1 < m_n) {
      delimiter += m_src.text[m_pos + 1];
      m_pos += 2;
    } else {
      delimiter += c;
      ++m_pos;
    }
  }
  if (!delimiter.empty()) {
    m_heredocs.push_back(Pending{delimiter, strip_tabs, quoted, m_out.commands.size()});
  }
}

void Lexer::read_heredocs()
{
  for (const auto& pending : m_heredocs) {
    const std::size_t body = m_pos;
    while (true) {
      const auto found = m_src.text.find('\n', m_pos);
      const std::size_t eol = found == std::string::npos ? m_n : found;
      std::string_view line(m_src.text.data() + m_pos, eol - m_pos);
      while (pending.strip_tabs && !line.empty() && line.front() == '\t') {
        line.remove_prefix(1);
      }
      if (!line.empty() && line.back() == '\r') {
        line.remove_suffix(1);
      }
      if (line == pending.delimiter || eol >= m_n) {
        const std::size_t body_end = line == pending.delimiter ? m_pos : m_n;
        if (body_end > body) {
          m_out.heredocs.emplace_back(off(body), off(body_end - 1) + 1);
          if (pending.command < m_out.commands.size() && !m_out.commands[pending.command].heredoc) {
            m_out.commands[pending.command].heredoc = slice(body, body_end);
            m_out.commands[pending.command].heredoc_quoted = pending.quoted;
          }
        }
        m_pos = eol < m_n ? eol + 1 : m_n;
        break;
      }
      m_pos = eol + 1;
    }
  }
  m_heredocs.clear();
}

LexResult lex(const Text& source, int depth)
{
  Lexer lexer(source, depth);
  return lexer.run();
}

Part parse_braced(const Text& inside, int dollar_offset, bool quoted)
{
  Part p;
  p.kind = PartKind::param;
  p.quoted = quoted;
  p.offset = dollar_offset;
  const std::string& s = inside.text;
  std::size_t i = 0;
  if (s.size() > 1 && s[0] == '#') {
    p.op = "len";
    i = 1;
  } else if (!s.empty() && s[0] == '!') {
    p.op = "other";
    i = 1;
  }
  if (i < s.size() && name_start(s[i])) {
    while (i < s.size() && name_char(s[i])) {
      p.name += s[i++];
    }
  } else if (i < s.size() && is_digit(s[i])) {
    while (i < s.size() && is_digit(s[i])) {
      p.name += s[i++];
    }
  } else if (i < s.size() && std::strchr("@*#?$!-", s[i]) != nullptr) {
    p.name = std::string(1, s[i++]);
  } else {
    p.op = "other";
    return p;
  }
  if (i < s.size() && s[i] == '[') {
    const auto close = s.find(']', i);
    const std::size_t end = close == std::string::npos ? s.size() : close;
    p.index = s.substr(i + 1, end - i - 1);
    i = end < s.size() ? end + 1 : s.size();
  }
  if (!p.op.empty() || i >= s.size()) {
    return p;
  }
  static constexpr std::array<const char*, 8> k_ops = {":-", ":=", ":+", ":?", "-", "=", "+", "?"};
  for (const char* op : k_ops) {
    const std::size_t len = std::strlen(op);
    if (s.compare(i, len, op) == 0) {
      p.op = op;
      for (std::size_t k = i + len; k < s.size(); ++k) {
        p.arg.append(s[k], k < inside.offsets.size() ? inside.offsets[k] : -1);
      }
      return p;
    }
  }
  p.op = "other";
  return p;
}

std::size_t assignment_prefix(const RawWord& word, bool& append)
{
  append = false;
  if (word.parts.empty() || word.parts[0].kind != PartKind::literal || word.parts[0].quoted) {
    return 0;
  }
  const std::string& s = word.parts[0].text.text;
  if (s.empty() || !name_start(s[0])) {
    return 0;
  }
  std::size_t i = 1;
  while (i < s.size() && name_char(s[i])) {
    ++i;
  }
  if (i < s.size() && s[i] == '=') {
    return i;
  }
  if (i + 1 < s.size() && s[i] == '+' && s[i + 1] == '=') {
    append = true;
    return i;
  }
  return 0;
}

} // namespace lg::audit::detail
