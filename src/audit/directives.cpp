// #SBATCH directives: every spelling (long/short, '=' or space, several per
// line, quoted values), read as sbatch does - only before the first command.
#include "audit/script_reader.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <utility>

namespace lg::audit::detail {

namespace {

struct Token
{
  std::string text;
  int offset = -1;
};

// Split a directive line's option text into words; a word starting with '#'
// ends it.
std::vector<Token> tokens(const std::string& line, int base)
{
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n')) {
      ++i;
    }
    if (i >= line.size() || line[i] == '#') {
      break;
    }
    Token token;
    token.offset = base + static_cast<int>(i);
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' && line[i] != '\n') {
      if (line[i] == '"' || line[i] == '\'') {
        const char quote = line[i];
        const auto close = line.find(quote, i + 1);
        const std::size_t end = close == std::string::npos ? line.size() : close;
        token.text += line.substr(i + 1, end - i - 1);
        i = end < line.size() ? end + 1 : end;
      } else {
        token.text += line[i++];
      }
    }
    out.push_back(std::move(token));
  }
  return out;
}

std::string long_name(char short_name)
{
  static constexpr std::array<std::pair<char, const char*>, 22> k_short = {{
    {'N', "nodes"},     {'n', "ntasks"},      {'c', "cpus-per-task"}, {'G', "gpus"},
    {'t', "time"},      {'p', "partition"},   {'A', "account"},       {'J', "job-name"},
    {'o', "output"},    {'e', "error"},       {'D', "chdir"},         {'w', "nodelist"},
    {'x', "exclude"},   {'C', "constraint"},  {'q', "qos"},           {'d', "dependency"},
    {'a', "array"},     {'M', "clusters"},    {'L', "licenses"},      {'m', "distribution"},
    {'i', "input"},     {'b', "begin"},
  }};
  for (const auto& [c, name] : k_short) {
    if (c == short_name) {
      return name;
    }
  }
  return std::string(1, short_name);
}

// Options without a value, or whose value is optional (then it needs '=':
// getopt_long, optional_argument), so that the next word is not theirs.
bool long_flag(const std::string& name)
{
  static constexpr std::array<const char*, 30> k_flags = {
    "exclusive", "requeue", "no-requeue", "overcommit", "contiguous", "hold", "parsable", "wait",
    "use-min-nodes", "spread-job", "test-only", "ignore-pbs", "oversubscribe", "reboot", "verbose",
    "quiet", "get-user-env", "propagate", "no-kill", "nice", "x11", "help", "usage", "version",
    // pyxis (NVIDIA/pyxis README, "Usage")
    "container-mount-home", "no-container-mount-home", "container-remap-root", "no-container-remap-root",
    "container-writable", "container-readonly"};
  for (const char* flag : k_flags) {
    if (name == flag) {
      return true;
    }
  }
  return false;
}

// Long options that take a value (required_argument in Slurm 22.05
// src/sbatch/opt.c): the next word is theirs even when it starts with '-'
// (`--comment "-j x"`), as getopt_long gives it.
bool long_takes_value(const std::string& name)
{
  static constexpr std::array<const char*, 58> k_valued = {
    "account", "array", "begin", "chdir", "clusters", "comment", "constraint", "cpus-per-gpu", "cpus-per-task",
    "dependency", "distribution", "error", "exclude", "export", "gpus", "gpus-per-node", "gpus-per-task", "gres",
    "gres-flags", "hint", "input", "job-name", "licenses", "mail-type", "mail-user", "mem", "mem-per-cpu",
    "mem-per-gpu", "nodelist", "nodes", "ntasks", "ntasks-per-node", "ntasks-per-gpu", "ntasks-per-core",
    "open-mode", "output", "partition", "qos", "reservation", "signal", "switches", "threads-per-core", "time",
    "time-min", "tmp", "wckey", "cpu-freq", "gpu-bind", "mincpus", "wait-all-nodes", "core-spec", "thread-spec",
    "container-image", "container-mounts", "container-workdir", "container-name", "container-save",
    "container-env"};
  for (const char* option : k_valued) {
    if (name == option) {
      return true;
    }
  }
  return false;
}

// Short letters without a value (-H hold, -O overcommit, -Q quiet, -s
// oversubscribe, -v, -V, -W wait, -h, -k no-kill).
bool short_flag(char letter)
{
  return std::strchr("HOQsvVWhk", letter) != nullptr;
}

void parse_line(const std::vector<Token>& words, bool ignored, std::vector<Directive>& out,
                std::vector<std::pair<int, std::string>>* strays)
{
  bool known_arity = true;  // the word before was an option whose value (if any) is settled
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& t = words[i].text;
    if (t.size() < 2 || t[0] != '-') {
      // sbatch: "Invalid directive found in batch script: WORD" (Slurm 22.05 here).
      if (known_arity && strays != nullptr && !ignored) {
        strays->emplace_back(words[i].offset, t);
      }
      known_arity = true;
      continue;
    }
    Directive d;
    d.spelled = t;
    d.offset = words[i].offset;
    d.ignored = ignored;
    d.late = ignored;
    if (t.starts_with("--")) {
      std::string name = t.substr(2);
      if (const auto eq = name.find('='); eq != std::string::npos) {
        d.value = name.substr(eq + 1);
        d.has_value = true;
        d.value_offset = d.offset + 2 + static_cast<int>(eq) + 1;
        name.resize(eq);
      }
      d.name = name == "workdir" ? "chdir" : name;
      d.spelled = "--" + name;
    } else {
      d.name = long_name(t[1]);
      d.spelled = t.substr(0, 2);
      if (t.size() > 2) {
        d.value = t.substr(t[2] == '=' ? 3 : 2);
        d.has_value = true;
        d.value_offset = d.offset + (t[2] == '=' ? 3 : 2);
      }
    }
    const bool is_long = t.starts_with("--");
    const bool flag = is_long ? long_flag(d.name) : short_flag(t[1]);
    const bool valued = is_long ? long_takes_value(d.name) : (!flag && d.name.size() > 1);
    known_arity = d.has_value || flag || valued;
    if (!d.has_value && !flag && i + 1 < words.size()
        && (!words[i + 1].text.starts_with("-") || (valued && words[i + 1].text.size() > 1))) {
      d.value = words[i + 1].text;
      d.value_offset = words[i + 1].offset;
      d.has_value = true;
      known_arity = true;
      ++i;
    }
    out.push_back(std::move(d));
  }
}

} // namespace

std::vector<Directive> read_directives(const std::string& text, const std::vector<int>& line_starts,
                                       int first_command_offset, const std::vector<std::pair<int, int>>& heredocs,
                                       std::vector<std::pair<int, std::string>>* strays)
{
  std::vector<Directive> out;
  std::size_t h = 0;
  int component = 0;
  for (std::size_t l = 0; l < line_starts.size(); ++l) {
    const auto begin = static_cast<std::size_t>(line_starts[l]);
    if (text.compare(begin, 7, "#SBATCH") != 0) {
      continue;
    }
    while (h < heredocs.size() && heredocs[h].second <= static_cast<int>(begin)) {
      ++h;
    }
    if (h < heredocs.size() && heredocs[h].first <= static_cast<int>(begin)) {
      continue;  // data (e.g. the job an `sbatch <<EOF` submits), not this script's directive
    }
    const std::size_t end = l + 1 < line_starts.size() ? static_cast<std::size_t>(line_starts[l + 1]) : text.size();
    const std::size_t body = begin + 7;
    if (body < end && text[body] != ' ' && text[body] != '\t') {
      continue;  // #SBATCHX
    }
    std::string line = text.substr(body, end > body ? end - body : 0);
    const bool ignored = first_command_offset >= 0 && static_cast<int>(begin) > first_command_offset;
    // `#SBATCH hetjob` (`packjob` before Slurm 19.05), any case, as the first
    // word: the options after it are the next component's (Slurm
    // src/sbatch/opt.c: _opt_batch_script counts the components,
    // get_argument blanks the word out and reads on).
    const std::size_t word = line.find_first_not_of(" \t");
    for (const std::string separator : {"hetjob", "packjob"}) {
      if (word == std::string::npos || line.size() < word + separator.size()) {
        continue;
      }
      std::string first = line.substr(word, separator.size());
      std::transform(first.begin(), first.end(), first.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      const std::size_t after = word + separator.size();
      if (first == separator && (after == line.size() || std::isspace(static_cast<unsigned char>(line[after])) != 0)) {
        line.replace(word, separator.size(), separator.size(), ' ');
        component += ignored ? 0 : 1;
        break;
      }
    }
    const std::size_t from = out.size();
    parse_line(tokens(line, static_cast<int>(body)), ignored, out, strays);
    for (std::size_t i = from; i < out.size(); ++i) {
      out[i].component = component;
    }
  }
  return out;
}

} // namespace lg::audit::detail
