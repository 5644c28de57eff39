// The shell lexer (lexer.hpp): one pass over the text, no backtracking; the
// scans for a closing quote, brace or parenthesis only run forward and the
// main loop resumes after them.
#include "audit/lexer_impl.hpp"

namespace lg::audit::detail {

Text Lexer::slice(std::size_t begin, std::size_t end) const
{
  Text out;
  for (std::size_t i = begin; i < end && i < m_n; ++i) {
    out.append(m_src.text[i], off(i));
  }
  return out;
}

void Lexer::start_word(std::size_t i)
{
  if (!m_in_word) {
    m_in_word = true;
    m_word = RawWord{};
    m_word.begin = off(i);
  }
}

void Lexer::lit(char c, std::size_t i, bool quoted)
{
  start_word(i);
  if (m_word.parts.empty() || m_word.parts.back().kind != PartKind::literal
      || m_word.parts.back().quoted != quoted) {
    Part part;
    part.quoted = quoted;
    part.offset = off(i);
    m_word.parts.push_back(std::move(part));
  }
  m_word.parts.back().text.append(c, off(i));
  m_word.end = off(i) + 1;
}

void Lexer::add_part(Part part, std::size_t i)
{
  start_word(i);
  m_word.parts.push_back(std::move(part));
  if (m_pos > 0) {
    m_word.end = off(m_pos - 1) + 1;
  }
}

void Lexer::finish_word()
{
  if (!m_in_word) {
    return;
  }
  m_in_word = false;
  if (m_redirect_target) {
    m_redirect_target = false;
    if (m_redirect_in >= 0 && m_pos < m_n && m_src.text[m_pos] == '>') {
      m_out.angle_redirects.push_back(m_redirect_in);  // `<WORD>`: the word ended at a `>`
    }
    m_redirect_in = -1;
    if (m_redirect_out) {
      m_cmd.outputs.push_back(std::move(m_word));
    }
    m_redirect_out = false;
    m_word = RawWord{};
    return;
  }
  if (m_cmd.words.empty()) {
    m_cmd.begin = m_word.begin;
  }
  m_cmd.end = m_word.end;
  m_cmd.words.push_back(std::move(m_word));
  m_word = RawWord{};
}

void Lexer::finish_command(const char* terminator)
{
  finish_word();
  m_redirect_target = false;
  m_redirect_out = false;
  if (!m_cmd.words.empty()) {
    m_cmd.terminator = terminator;
    m_out.commands.push_back(std::move(m_cmd));
  }
  m_cmd = RawCommand{};
}

void Lexer::skip_comment()
{
  while (m_pos < m_n && m_src.text[m_pos] != '\n') {
    ++m_pos;
  }
}

LexResult Lexer::run()
{
  while (m_pos < m_n) {
    step();
  }
  finish_command("");
  return std::move(m_out);
}

void Lexer::step()
{
  const char c = m_src.text[m_pos];
  if (c == '\\') {
    if (at(m_pos + 1) == '\n') {
      m_pos += 2;
    } else if (m_pos + 1 < m_n) {
      lit(at(m_pos + 1), m_pos + 1, true);
      m_pos += 2;
    } else {
      lit(c, m_pos, false);
      ++m_pos;
    }
    return;
  }
  if (c == '\n') {
    finish_command("\n");
    ++m_pos;
    read_heredocs();
    return;
  }
  if (c == ' ' || c == '\t' || c == '\r') {
    finish_word();
    ++m_pos;
    return;
  }
  if (c == '#' && !m_in_word) {
    skip_comment();
    return;
  }
  switch (c) {
  case '\'':
    single_quoted();
    return;
  case '"':
    double_quoted();
    return;
  case '$':
    dollar(false);
    return;
  case '`':
    backtick(false);
    return;
  case ';':
  case '&':
  case '|':
    operators(c);
    return;
  case '<':
  case '>':
    redirect(c);
    return;
  case '(':
    open_paren();
    return;
  case ')':
    finish_command(")");
    ++m_pos;
    return;
  default:
    lit(c, m_pos, false);
    ++m_pos;
  }
}

void Lexer::single_quoted()
{
  start_word(m_pos);
  ++m_pos;
  while (m_pos < m_n && m_src.text[m_pos] != '\'') {
    lit(m_src.text[m_pos], m_pos, true);
    ++m_pos;
  }
  m_word.end = off(m_pos < m_n ? m_pos : m_n - 1) + 1;
  if (m_pos < m_n) {
    ++m_pos;
  }
}

void Lexer::double_quoted()
{
  start_word(m_pos);
  ++m_pos;
  while (m_pos < m_n && m_src.text[m_pos] != '"') {
    const char c = m_src.text[m_pos];
    if (c == '\\' && m_pos + 1 < m_n) {
      const char next = m_src.text[m_pos + 1];
      if (next == '\n') {
        m_pos += 2;
        continue;
      }
      if (next == '$' || next == '`' || next == '"' || next == '\\') {
        lit(next, m_pos + 1, true);
        m_pos += 2;
        continue;
      }
    }
    if (c == '$') {
      dollar(true);
    } else if (c == '`') {
      backtick(true);
    } else {
      lit(c, m_pos, true);
      ++m_pos;
    }
  }
  m_word.end = off(m_pos < m_n ? m_pos : m_n - 1) + 1;
  if (m_pos < m_n) {
    ++m_pos;
  }
}

bool name_start(char c)
{
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

bool name_char(char c)
{
  return name_start(c) || (c >= '0' && c <= '9');
}

} // namespace lg::audit::detail
