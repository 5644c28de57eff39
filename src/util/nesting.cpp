#include "util/nesting.hpp"

#include "util/error.hpp"

#include <vector>

namespace lg {

namespace {

struct Open
{
  char kind = '[';             // '[' array or '{' inline table
  std::size_t outer_depth = 0;  // the value depth to restore on close
};

class DepthWalk
{
public:
  DepthWalk(std::string_view text, std::size_t max_depth)
    : m_text(text),
      m_max(max_depth)
  {
  }

  std::optional<TextPosition> run()
  {
    while (m_at < m_text.size() && !m_found) {
      step(m_text[m_at]);
    }
    return m_found;
  }

private:
  void advance(std::size_t count = 1)
  {
    for (std::size_t i = 0; i < count && m_at < m_text.size(); ++i) {
      if (m_text[m_at++] == '\n') {
        ++m_where.line;
        m_where.column = 1;
        if (m_open.empty()) {
          m_in_key = true;
          m_line_start = true;
          m_key_dots = 0;
        }
      } else {
        ++m_where.column;
      }
    }
  }

  void check(std::size_t depth)
  {
    if (depth > m_max && !m_found) {
      m_found = m_where;
    }
  }

  void skip_string(char quote)
  {
    const std::string_view triple_quote = quote == '"' ? "\"\"\"" : "'''";
    const bool triple = m_text.substr(m_at, 3) == triple_quote;
    advance(triple ? 3 : 1);
    while (m_at < m_text.size()) {
      const char c = m_text[m_at];
      if (c == '\\' && quote == '"') {
        advance(2);
      } else if (triple ? m_text.substr(m_at, 3) == triple_quote : c == quote) {
        advance(triple ? 3 : 1);
        return;
      } else if (c == '\n' && !triple) {
        return;  // unterminated: toml++ reports it
      } else {
        advance();
      }
    }
  }

  void header()
  {
    std::size_t dots = 0;  // `[[[` is invalid TOML, but counts as deeper all the same
    advance();
    while (m_at < m_text.size() && m_text[m_at] != ']' && m_text[m_at] != '\n') {
      const char c = m_text[m_at];
      if (c == '"' || c == '\'') {
        skip_string(c);
        continue;
      }
      dots += c == '.' || c == '[' ? 1 : 0;
      advance();
      check(dots + 1);
    }
    m_table_depth = dots + 1;
    m_in_key = false;  // the rest of the line is a comment or an error
  }

  // The depth of the table whose keys are being read.
  std::size_t key_base() const
  {
    return m_open.empty() ? m_table_depth : m_open.back().outer_depth;
  }

  void step(char c)
  {
    if (c == '"' || c == '\'') {
      skip_string(c);
      m_line_start = false;
      return;
    }
    if (c == '#') {
      while (m_at < m_text.size() && m_text[m_at] != '\n') {
        advance();
      }
      return;
    }
    if (c == '[' && m_line_start && m_open.empty()) {
      m_line_start = false;
      header();
      return;
    }
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
      m_line_start = false;
    }
    if (m_in_key) {
      key_char(c);
    } else {
      value_char(c);
    }
    advance();
  }

  void key_char(char c)
  {
    if (c == '.') {
      ++m_key_dots;
      check(key_base() + m_key_dots + 1);
    } else if (c == '=') {
      m_value_depth = key_base() + m_key_dots + 1;
      check(m_value_depth);
      m_in_key = false;
    } else if (c == '}' && !m_open.empty()) {
      value_char(c);  // an empty inline table
    }
  }

  void value_char(char c)
  {
    if (c == '[') {
      m_open.push_back({c, m_value_depth});
      m_value_depth += 1;  // the elements
      check(m_value_depth);
    } else if (c == '{') {
      m_open.push_back({c, m_value_depth});  // the table is the value; its keys are one deeper
      m_in_key = true;
      m_key_dots = 0;
    } else if ((c == ']' || c == '}') && !m_open.empty()) {
      m_value_depth = m_open.back().outer_depth;
      m_open.pop_back();
      m_in_key = false;
    } else if (c == ',' && !m_open.empty() && m_open.back().kind == '{') {
      m_in_key = true;
      m_key_dots = 0;
    } else if (c == ',' && !m_open.empty()) {
      m_value_depth = m_open.back().outer_depth + 1;
    }
  }

  std::string_view m_text;
  std::size_t m_max;
  std::size_t m_at = 0;
  TextPosition m_where;
  std::optional<TextPosition> m_found;
  std::vector<Open> m_open;
  std::size_t m_table_depth = 0;
  std::size_t m_value_depth = 0;
  std::size_t m_key_dots = 0;
  bool m_in_key = true;
  bool m_line_start = true;
};

} // namespace

std::optional<TextPosition> toml_too_deep(std::string_view text, std::size_t max_depth)
{
  return DepthWalk(text, max_depth).run();
}

} // namespace lg

namespace lg {

void refuse_deep_toml(std::string_view text, std::string_view display_name)
{
  if (const auto where = toml_too_deep(text)) {
    InputError error("{}:{}:{}: TOML nested more than {} levels deep (tables, dotted keys, arrays)",
                     display_name, where->line, where->column, k_max_toml_depth);
    error.hint = "launchguard files need a few levels ([model.moe]); is this a generated or damaged file?";
    throw error;
  }
}

} // namespace lg
