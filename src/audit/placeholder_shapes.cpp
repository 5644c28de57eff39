// The shapes of a placeholder left for the reader to fill in: <…>, {{…}},
// __NAME__, a second-person stand-in (your_account, YOU_TEAM_NAME), /path/to/,
// a Python file named like a constant (PYTHON_FILE.py), a run of x in an
// #SBATCH value, a capitalised value naming its option (--account ACCOUNT). Pure text tests; the findings are findings_secrets.cpp.
#include "audit/findings.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
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
    if (std::isalnum(static_cast<unsigned char>(c)) == 0
        && std::string_view(" _-./:").find(c) == std::string_view::npos) {
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
    if (std::isupper(static_cast<unsigned char>(t[i])) == 0 && t[i] != '_'
        && std::isdigit(static_cast<unsigned char>(t[i])) == 0) {
      return false;
    }
  }
  return true;
}

// "your_account", "YOUR-KEY", "YourOwnWandbAPIKey", "YOU_TEAM_NAME": "your"
// in any case then a word break ('_', '-' or a capital), or "you" then '_' or
// '-', so "yourself", "YOUNG" and "youtube" are not one. Returns the length of
// the head at `at` (4 or 3), 0 if none.
std::size_t second_person_at(std::string_view t, std::size_t at)
{
  auto head = [&](std::string_view word) {
    if (t.size() < at + word.size() + 1) {
      return false;
    }
    for (std::size_t i = 0; i < word.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(t[at + i])) != word[i]) {
        return false;
      }
    }
    return true;
  };
  // An address's "your@email", "your.name@site" and "you@example.com"
  // (held-out round 29's `--mail-user=your@email`).
  if (head("your")) {
    const char next = t[at + 4];
    return next == '_' || next == '-' || next == '@' || (next == '.' && t.find('@', at) != std::string_view::npos)
               || std::isupper(static_cast<unsigned char>(next)) != 0
             ? 4
             : 0;
  }
  // "YOU_TEAM_NAME", "you-name"; not "YOUNG" or "youtube".
  return head("you") && (t[at + 3] == '_' || t[at + 3] == '-' || t[at + 3] == '@') ? 3 : 0;
}

// Where a second-person stand-in starts in `t`: at the start of the word or
// of one of its parts ("osk-gpu[YOU_TEAM_GPU_NUM]", "/home/your_name/run",
// "gpu:your_gpu_count"); npos if none.
std::size_t second_person(std::string_view t)
{
  for (std::size_t at = 0; at < t.size(); ++at) {
    if ((at == 0 || std::string_view("[/=,:").find(t[at - 1]) != std::string_view::npos)
        && second_person_at(t, at) != 0) {
      return at;
    }
  }
  return std::string_view::npos;
}

// "PYTHON_FILE.py", "TRAIN_SCRIPT.py": a Python file named in capitals with an
// underscore. A .py file is a module, and PEP 8 ("Package and Module Names")
// names modules in lower case; one spelled like a constant is a stand-in for
// the reader's script. Returns its name without the directory, or empty.
std::string_view capitalised_script(std::string_view t)
{
  const auto slash = t.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? t : t.substr(slash + 1);
  if (!base.ends_with(".py")) {
    return {};
  }
  const std::string_view stem = base.substr(0, base.size() - 3);
  const bool caps = stem.size() >= 4 && std::isupper(static_cast<unsigned char>(stem.front())) != 0
                    && stem.find('_') != std::string_view::npos && std::all_of(stem.begin(), stem.end(), [](char ch) {
                         return std::isupper(static_cast<unsigned char>(ch)) != 0
                                || std::isdigit(static_cast<unsigned char>(ch)) != 0 || ch == '_';
                       });
  return caps ? base : std::string_view();
}

}  // namespace

namespace {

// "TODO_SET_DATA_PATH", "/ckpt/FIXME_RUN_NAME", "--load=CHANGEME": a part of a
// word (a run of letters, digits and '_') that is a to-do marker in capitals,
// alone or followed by '_' and more: nobody's path, account or value is
// spelled so. Not a `$TODO_DIR` / `${FIXME_X}` expansion left unknown (a
// variable's name, not a value). Empty: none.
std::string_view marker_placeholder(std::string_view t)
{
  // CHANGETHIS: held-out round 29's `#SBATCH -A CHANGETHIS`.
  static constexpr std::array<std::string_view, 12> k_markers = {
    "TODO",       "FIXME",        "CHANGEME",    "CHANGE_ME", "REPLACE_ME", "REPLACEME",
    "CHANGETHIS", "CHANGE_THIS", "REPLACE_THIS", "FILL_ME",  "FILLME",     "FILL_IN"};
  std::size_t i = 0;
  while (i < t.size()) {
    auto word_char = [&](std::size_t k) { return std::isalnum(static_cast<unsigned char>(t[k])) != 0 || t[k] == '_'; };
    if (!word_char(i)) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < t.size() && word_char(j)) {
      ++j;
    }
    const std::string_view part = t.substr(i, j - i);
    const bool expansion = i > 0 && (t[i - 1] == '$' || t[i - 1] == '{');
    for (const auto marker : k_markers) {
      if (!expansion && part.starts_with(marker) && (part.size() == marker.size() || part[marker.size()] == '_')) {
        return part;
      }
    }
    i = j;
  }
  return {};
}

}  // namespace

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

// `--account=??`, `IMAGE=??`, `gpu:??`: a part (between '/', ':', ',', '='
// and quotes) that is only question marks, two or more, as templates leave a
// value to fill in (round 26's BioNeMo ESM2 template). Empty: none.
std::string_view question_marks(std::string_view t)
{
  std::size_t i = 0;
  while (i < t.size()) {
    const auto end = std::min(t.find_first_of("/:,=\"' ", i), t.size());
    const std::string_view part = t.substr(i, end - i);
    if (part.size() >= 2 && part.find_first_not_of('?') == std::string_view::npos) {
      return part;
    }
    i = end + 1;
  }
  return {};
}

// `/users/username/…`, `/home/user_name`: a path component that only says
// "a user's name goes here" (round 26's LUMI job ran a second step from
// /users/username). Empty: none.
std::string_view username_part(std::string_view t)
{
  for (std::string_view stand_in : {"/username", "/user_name", "/USERNAME", "/USER_NAME"}) {
    const auto at = t.find(stand_in);
    const auto end = at + stand_in.size();
    if (at != std::string_view::npos
        && (end == t.size() || t[end] == '/' || t[end] == ';' || t[end] == '\'' || t[end] == '"' || t[end] == ' ')) {
      return t.substr(at + 1, stand_in.size() - 1);
    }
  }
  return {};
}

// `--account={CC_ACCOUNT}`: a name in single braces, not a `${…}` expansion,
// as a template leaves it for its formatter (round 27's Alliance Canada
// template). Empty: none.
std::string_view brace_name(std::string_view t)
{
  for (auto at = t.find('{'); at != std::string_view::npos; at = t.find('{', at + 1)) {
    if ((at > 0 && (t[at - 1] == '$' || t[at - 1] == '{')) || (at + 1 < t.size() && t[at + 1] == '{')) {
      continue;
    }
    const auto close = t.find('}', at);
    if (close == std::string_view::npos || close == at + 1) {
      continue;
    }
    const std::string_view name = t.substr(at + 1, close - at - 1);
    const bool identifier = std::all_of(name.begin(), name.end(), [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_';
    }) && std::isalpha(static_cast<unsigned char>(name.front())) != 0;
    if (identifier) {
      return t.substr(at, close - at + 1);
    }
  }
  return {};
}

bool placeholder(std::string_view t, bool template_mode)
{
  if (t.empty()) {
    return false;
  }
  if (!question_marks(t).empty() || !username_part(t).empty() || (!template_mode && !brace_name(t).empty())) {
    return true;
  }
  if (!template_mode && t.find("{{") != std::string_view::npos && t.find("}}") != std::string_view::npos) {
    return true;
  }
  return angle_placeholder(t) || dunder_placeholder(t) || second_person(t) != std::string_view::npos
         || !capitalised_script(t).empty() || t.starts_with("<your") || t.find("/path/to/") != std::string_view::npos
         || t.starts_with("path/to/") || t.find("PATH_TO_") != std::string_view::npos || !marker_placeholder(t).empty();
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
  if (const std::string_view marks = question_marks(t); !marks.empty()) {
    return std::string(marks);
  }
  if (const std::string_view user = username_part(t); !user.empty()) {
    return std::string(user);
  }
  if (const std::string_view braces = brace_name(t); !template_mode && !braces.empty()) {
    return std::string(braces);
  }
  if (angle_placeholder(t)) {
    return span("<", ">");
  }
  if (dunder_placeholder(t)) {
    return span("__", "__");
  }
  if (const std::string_view marker = marker_placeholder(t); !marker.empty()) {
    return std::string(marker);
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
  if (const std::string_view script = capitalised_script(t);
      !script.empty() && second_person(t) == std::string_view::npos) {
    return std::string(script);
  }
  // "your-partition" is one token; "your_account-account.x" is your_account;
  // "osk-gpu[YOU_TEAM_GPU_NUM]" is YOU_TEAM_GPU_NUM.
  std::size_t begin = second_person(t);
  const bool dashed = begin != std::string_view::npos && t[begin + second_person_at(t, begin)] == '-';
  // "your@email", "you@example.com": the whole address.
  const bool address = begin != std::string_view::npos && t.find('@', begin) != std::string_view::npos
                       && std::string_view("@.").find(t[begin + second_person_at(t, begin)]) != std::string_view::npos;
  begin = begin == std::string_view::npos ? 0 : begin;
  std::size_t end = begin;
  while (end < t.size()
         && (std::isalnum(static_cast<unsigned char>(t[end])) != 0 || t[end] == '_' || (dashed && t[end] == '-')
             || (address && (t[end] == '@' || t[end] == '.' || t[end] == '-')))) {
    ++end;
  }
  return std::string(end == begin ? t.substr(begin) : t.substr(begin, end - begin));
}

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

// `#SBATCH -A account_name`, `-p partition_name`, `--qos=my_qos`: a value
// in lower case that only says which option it is for, as templates leave
// it. `option` is the option as written (`-A`, `--account`).
bool generic_option_value(std::string option, std::string_view value)
{
  static const std::pair<const char*, const char*> k_short[] = {
    {"-A", "account"}, {"-p", "partition"}, {"-q", "qos"}, {"-C", "constraint"}, {"-w", "nodelist"}};
  for (const auto& [flag, name] : k_short) {
    if (option == flag) {
      option = name;
    }
  }
  while (!option.empty() && option.front() == '-') {
    option.erase(0, 1);
  }
  if (option.size() < 3 || value.size() < 4) {
    return false;
  }
  std::string v(value);
  for (char& ch : v) {
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  for (const char* shape : {"%_name", "%-name", "%name", "my_%", "my-%", "%_id", "name_of_%"}) {
    std::string want = shape;
    want.replace(want.find('%'), 1, option);
    if (v == want) {
      return true;
    }
  }
  return false;
}

}  // namespace lg::audit::detail
