// Internal to src/audit: an `if`/`elif` condition decided from the script's
// own values, so an optional branch (profiling, debugging, a second
// launcher) is read in the state the script sets by default. Only `true`,
// `false`, `:`, and `[ … ]` / `[[ … ]]` / `test …` with one comparison
// (string =, ==, !=; integer -eq -ne -lt -le -gt -ge; -n, -z, a lone word)
// and an optional leading `!` are decided, as bash's test builtin and
// conditional expressions define them (bash manual, "Bash Conditional
// Expressions"). Anything else, or any unknown word, is undecided.
#include "audit/shell_condition.hpp"

#include <charconv>
#include <string_view>

namespace lg::audit::detail {

namespace {

std::optional<long long> shell_integer(std::string_view text)
{
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
    text.remove_suffix(1);
  }
  if (text.starts_with('+')) {
    text.remove_prefix(1);
  }
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

bool has_glob(std::string_view text)
{
  return text.find_first_of("*?[") != std::string_view::npos;
}

std::optional<bool> binary(std::string_view lhs, std::string_view op, std::string_view rhs, bool double_bracket)
{
  if (op == "=" || op == "==" || op == "!=") {
    // Inside [[ ]] the right side is a pattern: only plain text is decided.
    if (double_bracket && has_glob(rhs)) {
      return std::nullopt;
    }
    return (lhs == rhs) == (op != "!=");
  }
  const auto a = shell_integer(lhs);
  const auto b = shell_integer(rhs);
  if (!a || !b) {
    return std::nullopt;
  }
  if (op == "-eq") {
    return *a == *b;
  }
  if (op == "-ne") {
    return *a != *b;
  }
  if (op == "-lt") {
    return *a < *b;
  }
  if (op == "-le") {
    return *a <= *b;
  }
  if (op == "-gt") {
    return *a > *b;
  }
  if (op == "-ge") {
    return *a >= *b;
  }
  return std::nullopt;
}

} // namespace

std::optional<bool> static_condition(const std::vector<Word>& words)
{
  std::size_t i = 0;
  bool negate = false;
  if (i < words.size() && words[i].known && words[i].text() == "!") {
    negate = true;
    ++i;
  }
  if (i >= words.size()) {
    return std::nullopt;
  }
  for (std::size_t k = i; k < words.size(); ++k) {
    if (!words[k].known || words[k].opaque) {
      return std::nullopt;
    }
  }
  const std::string& head = words[i].text();
  std::optional<bool> result;
  if (words.size() - i == 1 && (head == "true" || head == ":" || head == "false")) {
    result = head != "false";
  } else {
    std::vector<std::string_view> args;
    bool double_bracket = false;
    if (head == "[" || head == "[[") {
      const std::string close = head == "[" ? "]" : "]]";
      if (words.back().text() != close || words.size() - i < 2) {
        return std::nullopt;
      }
      double_bracket = head == "[[";
      for (std::size_t k = i + 1; k + 1 < words.size(); ++k) {
        args.emplace_back(words[k].text());
      }
    } else if (head == "test") {
      for (std::size_t k = i + 1; k < words.size(); ++k) {
        args.emplace_back(words[k].text());
      }
    } else {
      return std::nullopt;
    }
    bool inner_negate = false;
    if (!args.empty() && args.front() == "!") {
      inner_negate = true;
      args.erase(args.begin());
    }
    if (args.size() == 1) {
      result = !args[0].empty();
    } else if (args.size() == 2 && (args[0] == "-n" || args[0] == "-z")) {
      result = args[0] == "-n" ? !args[1].empty() : args[1].empty();
    } else if (args.size() == 3) {
      result = binary(args[0], args[1], args[2], double_bracket);
    }
    if (result && inner_negate) {
      result = !*result;
    }
  }
  if (result && negate) {
    result = !*result;
  }
  return result;
}

} // namespace lg::audit::detail
