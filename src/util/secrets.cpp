#include "util/secrets.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace lg::secrets {

namespace {

std::vector<std::string_view> words_of(std::string_view name)
{
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= name.size()) {
    const auto end = std::min(name.find('_', start), name.size());
    if (end > start) {
      out.push_back(name.substr(start, end - start));
    }
    start = end + 1;
  }
  return out;
}

std::string upper(std::string_view text)
{
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

bool alnum_run(std::string_view text, std::size_t from, std::size_t min)
{
  std::size_t n = 0;
  for (std::size_t i = from; i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) != 0 || text[i] == '_'); ++i) {
    ++n;
  }
  return n >= min;
}

// "300B", "1000000", "2.5T", "4k": a count or size.
bool number_like(std::string_view t)
{
  std::size_t i = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) != 0 || t[i] == '.' || t[i] == '_' || t[i] == ',')) {
    ++i;
  }
  if (i == 0) {
    return false;
  }
  return t.size() - i <= 2 && std::all_of(t.begin() + static_cast<std::ptrdiff_t>(i), t.end(),
                                          [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

bool placeholder_like(std::string_view t)
{
  const std::string u = upper(t);
  if (std::all_of(t.begin(), t.end(), [&](char c) { return c == t.front(); })) {
    return true;  // "xxx", "********"
  }
  static constexpr std::array<std::string_view, 10> k_markers = {
    "YOUR", "<", "{{", "XXX", "CHANGE", "REPLACE", "PLACEHOLDER", "EXAMPLE", "DUMMY", "__"};
  return std::any_of(k_markers.begin(), k_markers.end(), [&](std::string_view m) { return u.find(m) != std::string::npos; });
}

} // namespace

bool secret_name(std::string_view name)
{
  const std::string u = upper(name);
  const auto words = words_of(u);
  static constexpr std::array<std::string_view, 14> k_not_secret = {
    "TOKENS", "DIR", "PATH", "FILE", "COUNT", "NUM", "SIZE", "LEN", "LENGTH", "URL", "TYPE", "ID", "NAME", "LIMIT"};
  for (auto w : words) {
    if (std::find(k_not_secret.begin(), k_not_secret.end(), w) != k_not_secret.end()) {
      return false;
    }
  }
  static constexpr std::array<std::string_view, 5> k_pairs = {"API_KEY", "ACCESS_KEY", "PRIVATE_KEY", "AUTH_KEY", "SECRET_KEY"};
  if (std::any_of(k_pairs.begin(), k_pairs.end(), [&](std::string_view p) { return u.find(p) != std::string::npos; })) {
    return true;
  }
  static constexpr std::array<std::string_view, 7> k_words = {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PAT", "APIKEY", "CREDENTIALS"};
  return std::any_of(words.begin(), words.end(), [&](std::string_view w) {
    return std::find(k_words.begin(), k_words.end(), w) != k_words.end();
  });
}

bool token_shaped(std::string_view t)
{
  return (t.starts_with("hf_") && alnum_run(t, 3, 30)) || (t.starts_with("ghp_") && alnum_run(t, 4, 30))
         || (t.starts_with("github_pat_") && alnum_run(t, 11, 30)) || (t.starts_with("glpat-") && t.size() >= 26)
         || (t.starts_with("sk-") && t.size() >= 35) || ((t.starts_with("xoxb-") || t.starts_with("xoxp-")) && t.size() >= 20)
         || (t.starts_with("AKIA") && t.size() == 20 && std::all_of(t.begin(), t.end(), [](char c) {
              return std::isupper(static_cast<unsigned char>(c)) != 0 || std::isdigit(static_cast<unsigned char>(c)) != 0;
            }));
}

bool secret_shaped(std::string_view t)
{
  if (t.size() < 8 || t.find_first_of(" \t\n$`") != std::string_view::npos) {
    return false;  // short, several words, or an expansion the shell resolves at run time
  }
  if (t.front() == '/' || t.front() == '~' || t.front() == '.' || t.starts_with("file:")) {
    return false;
  }
  if (t.find("://") != std::string_view::npos && t.find('@') == std::string_view::npos) {
    return false;  // a URL without user info
  }
  if (number_like(t) || placeholder_like(t)) {
    return false;
  }
  const std::string lower = [&] {
    std::string s(t);
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  }();
  return lower != "true" && lower != "false" && lower != "none" && lower != "null";
}

bool holds_secret(std::string_view name, std::string_view value)
{
  return token_shaped(value) || (secret_name(name) && secret_shaped(value));
}

std::vector<std::string> secret_names(const std::vector<std::pair<std::string, std::string>>& env)
{
  std::vector<std::string> out;
  for (const auto& [name, value] : env) {
    if (holds_secret(name, value) && std::find(out.begin(), out.end(), name) == out.end()) {
      out.push_back(name);
    }
  }
  return out;
}

std::string redact_assignments(std::string_view word)
{
  std::string out;
  std::string_view list = word;
  if (word.starts_with('-')) {
    const auto equals = word.find('=');
    if (equals == std::string_view::npos) {
      return std::string(word);
    }
    out = std::string(word.substr(0, equals + 1));
    list = word.substr(equals + 1);
  }
  std::size_t start = 0;
  while (start <= list.size()) {
    const auto end = std::min(list.find(',', start), list.size());
    const std::string_view item = list.substr(start, end - start);
    const auto equals = item.find('=');
    if (equals != std::string_view::npos && holds_secret(item.substr(0, equals), item.substr(equals + 1))) {
      out += item.substr(0, equals + 1);
      out += k_redacted;
    } else {
      out += item;
    }
    if (end < list.size()) {
      out += ',';
    }
    start = end + 1;
  }
  return out;
}

} // namespace lg::secrets
