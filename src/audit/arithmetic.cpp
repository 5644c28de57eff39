// $(( … )) over known integer variables: + - * / % and parentheses, unary
// minus, names with or without '$'. Anything else is unknown.
#include "audit/expand.hpp"

#include <charconv>
#include <limits>

namespace lg::audit::detail {

namespace {

constexpr int k_max_nesting = 32;

class Parser
{
public:
  Parser(const std::string& text, const Variables& vars)
    : m_s(text),
      m_vars(vars)
  {
  }

  std::optional<long long> parse()
  {
    auto v = sum(0);
    skip();
    if (!v || m_i != m_s.size()) {
      return std::nullopt;
    }
    return v;
  }

private:
  void skip()
  {
    while (m_i < m_s.size() && (m_s[m_i] == ' ' || m_s[m_i] == '\t' || m_s[m_i] == '\n')) {
      ++m_i;
    }
  }

  std::optional<long long> sum(int depth)
  {
    auto left = product(depth);
    while (left) {
      skip();
      if (m_i >= m_s.size() || (m_s[m_i] != '+' && m_s[m_i] != '-')) {
        break;
      }
      const char op = m_s[m_i++];
      auto right = product(depth);
      if (!right) {
        return std::nullopt;
      }
      long long r = 0;
      if (op == '+' ? __builtin_add_overflow(*left, *right, &r) : __builtin_sub_overflow(*left, *right, &r)) {
        return std::nullopt;
      }
      left = r;
    }
    return left;
  }

  std::optional<long long> product(int depth)
  {
    auto left = unary(depth);
    while (left) {
      skip();
      if (m_i >= m_s.size() || (m_s[m_i] != '*' && m_s[m_i] != '/' && m_s[m_i] != '%')) {
        break;
      }
      const char op = m_s[m_i++];
      auto right = unary(depth);
      if (!right || (op != '*' && *right == 0)) {
        return std::nullopt;
      }
      long long r = 0;
      if (op == '*') {
        if (__builtin_mul_overflow(*left, *right, &r)) {
          return std::nullopt;
        }
      } else if (*left == std::numeric_limits<long long>::min() && *right == -1) {
        return std::nullopt;
      } else {
        r = op == '/' ? *left / *right : *left % *right;
      }
      left = r;
    }
    return left;
  }

  std::optional<long long> unary(int depth)
  {
    skip();
    if (depth > k_max_nesting || m_i >= m_s.size()) {
      return std::nullopt;
    }
    if (m_s[m_i] == '-' || m_s[m_i] == '+') {
      const char op = m_s[m_i++];
      auto v = unary(depth + 1);
      if (!v || *v == std::numeric_limits<long long>::min()) {
        return std::nullopt;
      }
      return op == '-' ? -*v : *v;
    }
    if (m_s[m_i] == '(') {
      ++m_i;
      auto v = sum(depth + 1);
      skip();
      if (!v || m_i >= m_s.size() || m_s[m_i] != ')') {
        return std::nullopt;
      }
      ++m_i;
      return v;
    }
    return atom();
  }

  std::optional<long long> atom()
  {
    if (m_s[m_i] >= '0' && m_s[m_i] <= '9') {
      long long v = 0;
      const auto [end, ec] = std::from_chars(m_s.data() + m_i, m_s.data() + m_s.size(), v);
      if (ec != std::errc()) {
        return std::nullopt;
      }
      m_i = static_cast<std::size_t>(end - m_s.data());
      return v;
    }
    bool braced = false;
    if (m_s[m_i] == '$') {
      ++m_i;
      braced = m_i < m_s.size() && m_s[m_i] == '{';
      m_i += braced ? 1 : 0;
    }
    std::string name;
    while (m_i < m_s.size() && name_char(m_s[m_i])) {
      name += m_s[m_i++];
    }
    if (braced) {
      if (m_i >= m_s.size() || m_s[m_i] != '}') {
        return std::nullopt;
      }
      ++m_i;
    }
    return variable(name);
  }

  std::optional<long long> variable(const std::string& name) const
  {
    const auto it = m_vars.find(name);
    if (name.empty() || !name_start(name[0]) || it == m_vars.end() || !it->second.known
        || it->second.items.empty()) {
      return std::nullopt;
    }
    const std::string& text = it->second.items.front().text();
    long long v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) {
      return std::nullopt;
    }
    return v;
  }

  const std::string& m_s;
  const Variables& m_vars;
  std::size_t m_i = 0;
};

} // namespace

std::optional<long long> arithmetic(const std::string& expression, const Variables& vars)
{
  Parser parser(expression, vars);
  return parser.parse();
}

} // namespace lg::audit::detail
