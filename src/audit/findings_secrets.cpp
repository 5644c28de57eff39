// Secrets (set -x around them, tokens written into the script) and leftover
// placeholders.
#include "audit/findings.hpp"

#include "util/secrets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <cctype>
#include <set>
#include <string_view>

namespace lg::audit::detail {

namespace {

bool angle_placeholder(std::string_view t)
{
  const auto open = t.find('<');
  const auto close = open == std::string_view::npos ? open : t.find('>', open);
  if (close == std::string_view::npos || close - open < 2 || close - open > 60) {
    return false;
  }
  bool letter = false;
  for (std::size_t i = open + 1; i < close; ++i) {
    const char c = t[i];
    letter = letter || std::isalpha(static_cast<unsigned char>(c)) != 0;
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && std::string_view(" _-./:").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return letter;
}

bool dunder_placeholder(std::string_view t)
{
  const auto open = t.find("__");
  const auto close = open == std::string_view::npos ? open : t.find("__", open + 2);
  if (close == std::string_view::npos || close == open + 2) {
    return false;
  }
  for (std::size_t i = open + 2; i < close; ++i) {
    if (std::isupper(static_cast<unsigned char>(t[i])) == 0 && t[i] != '_' && std::isdigit(static_cast<unsigned char>(t[i])) == 0) {
      return false;
    }
  }
  return true;
}

// "your_account", "YOUR-KEY", "YourOwnWandbAPIKey": "your" in any case, then
// a word break ('_', '-' or a capital), so "yourself" is not one.
bool your_placeholder(std::string_view t)
{
  if (t.size() < 5) {
    return false;
  }
  std::string head(t.substr(0, 4));
  std::transform(head.begin(), head.end(), head.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  const char next = t[4];
  return head == "your" && (next == '_' || next == '-' || std::isupper(static_cast<unsigned char>(next)) != 0);
}

// "#SBATCH --account=project_xxxxxxxxx", "--qos=XXXX": a part of an #SBATCH
// value (between non-alphanumerics) that is one letter x, three or more
// times, in one case. No account, partition or host is spelled so; in a
// variable it may be somebody's value, so only directives are read this way.
bool x_filler(std::string_view t)
{
  std::size_t i = 0;
  while (i < t.size()) {
    std::size_t j = i;
    while (j < t.size() && std::isalnum(static_cast<unsigned char>(t[j])) != 0) {
      ++j;
    }
    const std::string_view part = t.substr(i, j - i);
    if (part.size() >= 3 && (part.front() == 'x' || part.front() == 'X')
        && std::all_of(part.begin(), part.end(), [&](char ch) { return ch == part.front(); })) {
      return true;
    }
    i = j + 1;
  }
  return false;
}

} // namespace

bool placeholder(std::string_view t, bool template_mode)
{
  if (t.empty()) {
    return false;
  }
  if (!template_mode && t.find("{{") != std::string_view::npos && t.find("}}") != std::string_view::npos) {
    return true;
  }
  return angle_placeholder(t) || dunder_placeholder(t) || your_placeholder(t)
         || t.starts_with("<your") || t.find("/path/to/") != std::string_view::npos || t.starts_with("path/to/") || t.find("PATH_TO_") != std::string_view::npos
         || t == "CHANGEME" || t == "CHANGE_ME" || t == "REPLACE_ME" || t == "FIXME" || t == "TODO";
}

namespace {

bool xtrace_at(const ScriptModel& m, int offset)
{
  bool on = m.xtrace_from_shebang;
  for (const auto& [at, state] : m.xtrace) {
    if (at < offset) {
      on = state;
    }
  }
  return on;
}

// A stand-in where a secret belongs: "xxx", "XXXX", "****", "...": one filler
// character three or more times. Only read for variables named like secrets.
bool filler_value(std::string_view v)
{
  if (v.size() < 3 || std::string_view("xX*.").find(v.front()) == std::string_view::npos) {
    return false;
  }
  return std::all_of(v.begin(), v.end(), [&](char ch) { return ch == v.front(); });
}

void secrets(FindingContext& c)
{
  std::set<std::string> traced;
  for (const auto& a : c.model.assignments) {
    const std::string value = a.value.empty() ? "" : a.value.front().text();
    const bool named = secrets::secret_name(a.name);
    if (a.kind == AssignKind::unset || (!named && !secrets::token_shaped(value))) {
      continue;
    }
    if (named && xtrace_at(c.model, a.offset) && traced.insert(a.name).second) {
      c.add(Severity::warning, "audit.xtrace_secret",
            fmt::format("set -x is on where {} is assigned: bash prints the value into the job log", a.name),
            "wrap the secret in `set +x` … `set -x`, or turn tracing on after it", a.offset);
    }
    if (named && a.known && a.literal && filler_value(value)) {
      c.add(Severity::warning, "audit.placeholder",
            fmt::format("{}={} is a stand-in, not a credential: the job starts, waits in the queue and fails when "
                        "it first logs in",
                        a.name, value),
            fmt::format("delete this line and export {} in the shell that runs sbatch (sbatch's default "
                        "--export=ALL carries it into the job), or read it at run time from a file only you can read",
                        a.name),
            a.value_offset);
      continue;
    }
    if (a.known && (a.literal || secrets::token_shaped(value)) && secrets::holds_secret(a.name, value) && !placeholder(value, c.options.template_mode)) {
      c.add(Severity::error, "audit.secret_in_script",
            fmt::format("{} is written into the script: every copy of the template and every archived job script "
                        "carries it",
                        a.name),
            fmt::format("export {} in the shell that runs sbatch instead (sbatch's default --export=ALL carries it "
                        "into the job without writing it to disk), or read it at run time from a file only you can "
                        "read: export {}=\"$(cat ~/.secrets/{})\"",
                        a.name, a.name, a.name),
            a.value_offset);
    }
  }
  for (const auto& use : c.model.uses) {
    if (secrets::secret_name(use.name) && use.batch_shell && xtrace_at(c.model, use.offset) && traced.insert(use.name).second) {
      c.add(Severity::warning, "audit.xtrace_secret",
            fmt::format("set -x is on where ${} is expanded: bash prints the secret into the job log", use.name),
            "turn tracing off (set +x) around commands that use secrets", use.offset);
    }
  }
}

// The placeholder inside `t` as written ("{{ nodes }}", "<account>",
// "__OUTPUT_DIR__", "your_own_partition"), or empty. Occurrences of the same
// token are one finding.
std::string placeholder_token(std::string_view t, bool template_mode)
{
  if (!placeholder(t, template_mode)) {
    return {};
  }
  auto span = [&](std::string_view open, std::string_view close) -> std::string {
    const auto b = t.find(open);
    const auto e = b == std::string_view::npos ? b : t.find(close, b + open.size());
    return e == std::string_view::npos ? std::string() : std::string(t.substr(b, e + close.size() - b));
  };
  if (!template_mode) {
    if (auto m = span("{{", "}}"); !m.empty()) {
      return m;
    }
  }
  if (angle_placeholder(t)) {
    return span("<", ">");
  }
  if (dunder_placeholder(t)) {
    return span("__", "__");
  }
  if (const auto at = t.find("PATH_TO_"); at != std::string_view::npos) {
    std::size_t end = at;
    while (end < t.size() && (std::isupper(static_cast<unsigned char>(t[end])) != 0 || t[end] == '_')) {
      ++end;
    }
    return std::string(t.substr(at, end - at));
  }
  if (const auto at = t.find("/path/to/"); at != std::string_view::npos) {
    const auto end = t.find_first_of(" \t,:", at);
    return std::string(t.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
  }
  std::size_t end = 0;
  // "your-partition" is one token; "your_account-account.x" is your_account.
  const bool dashed = your_placeholder(t) && t[4] == '-';
  while (end < t.size() && (std::isalnum(static_cast<unsigned char>(t[end])) != 0 || t[end] == '_' || (dashed && t[end] == '-'))) {
    ++end;
  }
  return std::string(t.substr(0, end == 0 ? t.size() : end));
}

struct PlaceholderUse
{
  int offset = -1;
  int line = 0;
  bool blocks = false;  // in a directive sbatch or Slurm rejects (not --job-name/--comment)
};

} // namespace

// "--partition=PARTITION_NAME", "--account ACCOUNT", "--qos=QOS": a value in
// capitals that names its own option is a stand-in left for the reader.
bool names_its_option(std::string option, std::string_view value)
{
  if (value.size() < 3 || !std::all_of(value.begin(), value.end(), [](char ch) {
        return std::isupper(static_cast<unsigned char>(ch)) != 0 || ch == '_';
      })) {
    return false;
  }
  while (!option.empty() && option.front() == '-') {
    option.erase(0, 1);
  }
  const std::string head = option.substr(0, option.find('-'));  // "gpus-per-node" -> "gpus"
  std::string upper;
  for (char ch : head) {
    upper += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  }
  // "gpus-per-node GPU_NUM", "cpus-per-task CPU_NUM": the singular counts too.
  const std::string singular = upper.ends_with('S') ? upper.substr(0, upper.size() - 1) : upper;
  return (upper.size() >= 3 && value.find(upper) != std::string_view::npos)
         || (singular.size() >= 3 && value.find(singular) != std::string_view::npos);
}

namespace {

// The words of a directive line (after "#SBATCH "), each word and its value
// after '='; calls `use(token, blocks)` for each placeholder found.
template<typename Use>
void directive_placeholders(const std::string& line, bool template_mode, Use use)
{
  std::size_t i = 0;
  for (std::string open : {"{{", "<"}) {
    // A placeholder with spaces inside ("{{ nodes }}", "<SLURM OPTIONS>") is one word.
    const auto b = line.find(open);
    if (b != std::string::npos) {
      const std::string t = placeholder_token(line.substr(b), template_mode);
      if (!t.empty()) {
        const auto start = line.rfind(' ', b);
        const std::string option = line.substr(start == std::string::npos ? 0 : start + 1, b - (start == std::string::npos ? 0 : start + 1));
        use(t, option.find("job-name") == std::string::npos && option.find("comment") == std::string::npos);
        return;
      }
    }
  }
  std::string previous;
  while (i < line.size()) {
    const auto end = std::min(line.find_first_of(" \t", i), line.size());
    const std::string word = line.substr(i, end - i);
    const auto eq = word.find('=');
    const std::string value = eq == std::string::npos ? word : word.substr(eq + 1);
    std::string t = placeholder_token(value, template_mode);
    if (t.empty()) {
      t = placeholder_token(word, template_mode);
    }
    if (t.empty() && (eq != std::string::npos || (previous.starts_with("-") && previous.find('=') == std::string::npos))
        && x_filler(value)) {
      t = value;
    }
    if (t.empty() && word.starts_with("--") && eq != std::string::npos && names_its_option(word.substr(0, eq), value)) {
      t = value;
    }
    if (t.empty() && eq == std::string::npos && previous.starts_with("--") && previous.find('=') == std::string::npos
        && names_its_option(previous, word)) {
      t = word;
    }
    previous = word;
    if (!t.empty()) {
      const bool cosmetic = word.starts_with("--job-name") || word.starts_with("-J") || word.starts_with("--comment");
      use(t, !cosmetic);
    }
    i = end + 1;
  }
}

void placeholders(FindingContext& c)
{
  const ScriptModel& m = c.model;
  const bool tmpl = c.options.template_mode;
  std::vector<std::string> order;
  std::map<std::string, std::vector<PlaceholderUse>> uses;
  auto record = [&](const std::string& token, int offset, bool blocks) {
    auto& list = uses[token];
    if (list.empty()) {
      order.push_back(token);
    }
    const int line = m.line_of(offset);
    for (auto& u : list) {
      if (u.line == line) {
        u.blocks = u.blocks || blocks;
        return;
      }
    }
    list.push_back(PlaceholderUse{offset, line, blocks});
  };
  for (std::size_t l = 0; l < m.line_starts.size(); ++l) {
    const auto begin = static_cast<std::size_t>(m.line_starts[l]);
    if (m.text.compare(begin, 8, "#SBATCH ") != 0) {
      continue;
    }
    const auto eol = m.text.find('\n', begin);
    std::string line = m.text.substr(begin + 8, eol == std::string::npos ? std::string::npos : eol - begin - 8);
    if (const auto comment = line.find(" #"); comment != std::string::npos) {
      line.resize(comment);
    }
    directive_placeholders(line, tmpl, [&](const std::string& token, bool blocks) {
      record(token, static_cast<int>(begin), blocks);
    });
  }
  auto check_word = [&](const Word& w) {
    if (w.offset < 0) {
      return;
    }
    const std::string t = placeholder_token(w.text(), tmpl);
    if (!t.empty()) {
      record(t, w.offset, false);
    }
  };
  for (const auto& a : m.assignments) {
    for (const auto& w : a.value) {
      if (w.known && !a.prefix) {
        check_word(w);
      }
    }
  }
  // The launch line and every other command that sets the job up (`conda
  // activate YOUR_ENV`, `cd /path/to/run`): the same shapes. Words printed
  // for a reader (echo, printf) are prose, not values.
  for (const auto& command : m.commands) {
    const auto& words = command.words;
    if (words.empty() || (words.front().known && (words.front().text() == "echo" || words.front().text() == "printf"))) {
      continue;
    }
    for (const auto& w : words) {
      if (w.known) {
        check_word(w);
      }
    }
  }
  // A branch that does not run by default still has to be filled in before
  // someone switches it on: its words as written.
  for (const auto& [begin, end] : m.dead_commands) {
    std::size_t at = static_cast<std::size_t>(std::max(begin, 0));
    const std::size_t stop = std::min(static_cast<std::size_t>(std::max(end, 0)), m.text.size());
    while (at < stop) {
      const std::size_t from = m.text.find_first_not_of(" \t\n\\", at);
      if (from >= stop) {
        break;
      }
      std::size_t to = m.text.find_first_of(" \t\n", from);
      to = std::min(to == std::string::npos ? stop : to, stop);
      Word w;
      w.value.text = m.text.substr(from, to - from);
      w.offset = static_cast<int>(from);
      check_word(w);
      at = to;
    }
  }
  for (const auto& token : order) {
    auto list = uses[token];
    std::sort(list.begin(), list.end(), [](const PlaceholderUse& x, const PlaceholderUse& y) { return x.line < y.line; });
    const bool blocks = std::any_of(list.begin(), list.end(), [](const PlaceholderUse& u) { return u.blocks; });
    std::string also;
    for (std::size_t i = 1; i < list.size(); ++i) {
      also += fmt::format("{}{}", i == 1 ? "" : ", ", list[i].line);
    }
    const PlaceholderUse& first = list.front();
    std::string message = blocks ? fmt::format("leftover placeholder {} in an #SBATCH option: sbatch passes it to Slurm as written", token)
                                 : fmt::format("leftover placeholder: {}", token);
    if (!also.empty()) {
      message += fmt::format(" (also used on line{} {})", list.size() > 2 ? "s" : "", also);
    }
    c.add(blocks ? Severity::error : Severity::warning, "audit.placeholder", std::move(message),
          blocks ? "fill in the real value (sbatch does not expand variables or templates in #SBATCH lines)"
                 : "fill in the real value (or read it from a variable the caller sets)",
          first.offset);
  }
}

} // namespace

void secret_findings(FindingContext& c)
{
  secrets(c);
  placeholders(c);
}

} // namespace lg::audit::detail
