// Internal to src/audit: the lexer's state machine, shared by lexer.cpp
// (words, quotes, operators) and lexer_dollar.cpp ($-expansions, parentheses,
// heredocs).
#pragma once

#include "audit/lexer.hpp"

namespace lg::audit::detail {

inline constexpr int k_max_depth = 6;

class Lexer
{
public:
  Lexer(const Text& source, int depth)
    : m_src(source),
      m_n(source.text.size()),
      m_depth(depth)
  {
  }

  LexResult run();

private:
  char at(std::size_t i) const { return i < m_n ? m_src.text[i] : '\0'; }
  int off(std::size_t i) const { return i < m_src.offsets.size() ? m_src.offsets[i] : -1; }
  Text slice(std::size_t begin, std::size_t end) const;

  void start_word(std::size_t i);
  void lit(char c, std::size_t i, bool quoted);
  void add_part(Part part, std::size_t i);
  void finish_word();
  void finish_command(const char* terminator);
  bool in_test_brackets() const;

  void step();
  void single_quoted();
  void double_quoted();
  void dollar(bool quoted);
  void ansi_c_quoted();
  void backtick(bool quoted);
  void operators(char c);
  void redirect(char c);
  void open_paren();
  void read_heredoc_delimiter(bool strip_tabs);
  void read_heredocs();
  void skip_comment();

  std::size_t matching_paren(std::size_t open) const;  // index of the ')' or m_n
  std::size_t matching_brace(std::size_t open) const;  // index of the '}' or m_n

  const Text& m_src;
  std::size_t m_n;
  int m_depth;
  std::size_t m_pos = 0;
  LexResult m_out;
  RawCommand m_cmd;
  RawWord m_word;
  bool m_in_word = false;
  bool m_redirect_target = false;  // the next word is a redirection target
  int m_redirect_in = -1;          // offset of a plain `<` whose target is being read, else -1
  bool m_redirect_out = false;     // the target being read is an output file (`>`, `>>`, `&>`)
  struct Pending
  {
    std::string delimiter;
    bool strip_tabs = false;
    bool quoted = false;          // 'EOF', "EOF" or \EOF: the body is not expanded
    std::size_t command = 0;      // index in m_out.commands of the command that reads it
  };
  std::vector<Pending> m_heredocs;
};

} // namespace lg::audit::detail
