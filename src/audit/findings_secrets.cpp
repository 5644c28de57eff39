// Secrets (set -x around them, tokens written into the script) and leftover
// placeholders (their shapes: placeholder_shapes.cpp).
#include "audit/findings.hpp"

#include "util/secrets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <cctype>
#include <set>
#include <vector>
#include <string_view>

namespace lg::audit::detail {

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
// Also a token cut short where it was published: `hf_aK...`, `sk-…`, or a
// token prefix followed by filler (`hf_xxxxxxxx`): the real value was elided.
bool filler_value(std::string_view v)
{
  if (v.ends_with("...") || v.ends_with("\u2026")) {
    return true;
  }
  const auto run_of = [](std::string_view t) {
    return t.size() >= 3 && std::string_view("xX*.").find(t.front()) != std::string_view::npos
           && std::all_of(t.begin(), t.end(), [&](char ch) { return ch == t.front(); });
  };
  if (run_of(v)) {
    return true;
  }
  const auto cut = v.find_first_of("_-");
  return cut != std::string_view::npos && cut > 0 && cut <= 8 && run_of(v.substr(cut + 1));
}

// A value no credential has: a boolean or a number (`START_END_TOKEN=false`,
// `MAX_TOKENS=4096`: names that say TOKEN and hold a setting; held-out round
// 30's NeMo job). A short word is not one: `WANDB_API_KEY=??` is a stand-in
// that becomes the key once filled in (round 26).
bool setting_value(std::string_view v)
{
  static constexpr std::array<std::string_view, 10> k_words = {"true", "false", "True", "False", "yes",
                                                                "no",   "on",    "off",  "none", "None"};
  if (std::find(k_words.begin(), k_words.end(), v) != k_words.end()) {
    return true;
  }
  return !v.empty() && v.find_first_not_of("0123456789.-") == std::string_view::npos;
}

// The literal value `name` holds where it is used at `offset`, if the last
// assignment above says it.
const Assignment* last_assignment(const ScriptModel& m, const std::string& name, int offset)
{
  const Assignment* found = nullptr;
  for (const auto& a : m.assignments) {
    if (a.name == name && a.offset < offset) {
      found = &a;
    }
  }
  return found;
}

void secrets(FindingContext& c)
{
  std::set<std::string> traced;
  // The script's assignments, and those a launch's own shell makes
  // (`CMD="HF_TOKEN=… torchrun …"; srun bash -c "$CMD"`).
  std::vector<const Assignment*> all;
  std::set<int> offsets;
  for (const auto& a : c.model.assignments) {
    offsets.insert(a.offset);
    all.push_back(&a);
  }
  for (const auto& l : c.model.launches) {
    for (const auto& a : l.env) {
      if (a.offset >= 0 && offsets.insert(a.offset).second) {
        all.push_back(&a);
      }
    }
  }
  for (const Assignment* each : all) {
    const Assignment& a = *each;
    const std::string value = a.value.empty() ? "" : a.value.front().text();
    const bool named = secrets::secret_name(a.name);
    if (a.kind == AssignKind::unset || (!named && !secrets::token_shaped(value))) {
      continue;
    }
    const bool stand_in = named && a.known && a.literal && filler_value(value);
    const bool setting = a.known && setting_value(value);
    if (named && !stand_in && !setting && xtrace_at(c.model, a.offset) && traced.insert(a.name).second) {
      c.add(Severity::warning, "audit.xtrace_secret",
            fmt::format("set -x is on where {} is assigned: bash prints the value into the job log", a.name),
            "wrap the secret in `set +x` … `set -x`, or turn tracing on after it", a.offset);
    }
    if (stand_in) {
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
  // A credential given to the program as an argument (`--use_wandb
  // add91d3d…`, `--hf_token hf_…`, `--api-key=…`): written into the script as
  // an assignment would be, and visible in `ps` on the node besides. W&B API
  // keys are 40 hexadecimal characters (wandb/sdk/lib/apikey.py checks the
  // length); held-out round 30's OpenLLaMA2 template.
  for (const auto& l : c.model.launches) {
    for (std::size_t i = 0; i < l.args.size(); ++i) {
      const Word& w = l.args[i];
      if (!w.known || !w.text().starts_with("--")) {
        continue;
      }
      const auto eq = w.text().find('=');
      std::string option = w.text().substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      const Word* value_word = eq != std::string::npos ? &w : (i + 1 < l.args.size() ? &l.args[i + 1] : nullptr);
      if (value_word == nullptr || !value_word->known) {
        continue;
      }
      const std::string value = eq != std::string::npos ? w.text().substr(eq + 1) : value_word->text();
      std::string name = option;
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) {
        return ch == '-' ? '_' : static_cast<char>(std::toupper(ch));
      });
      const bool hex40 = value.size() == 40 && value.find_first_not_of("0123456789abcdef") == std::string::npos;
      const bool wandb_key = hex40 && (name.find("WANDB") != std::string::npos || name.find("KEY") != std::string::npos);
      if (!(wandb_key || secrets::token_shaped(value) || (secrets::secret_name(name) && secrets::secret_shaped(value)))
          || placeholder(value, c.options.template_mode) || value.starts_with("$")) {
        continue;
      }
      c.add(Severity::error, "audit.secret_in_script",
            fmt::format("the value of --{} is a credential written into the script: every copy carries it, and "
                        "`ps` on the node shows it to other users",
                        option),
            fmt::format("export it in the shell that runs sbatch and let the program read it from the "
                        "environment{}",
                        wandb_key ? " (WANDB_API_KEY)" : ""),
            value_word->offset);
    }
  }
  for (const auto& use : c.model.uses) {
    const Assignment* held = last_assignment(c.model, use.name, use.offset);
    if (held != nullptr && held->known && !held->value.empty() && setting_value(held->value.front().text())) {
      continue;
    }
    if (secrets::secret_name(use.name) && use.batch_shell && xtrace_at(c.model, use.offset) && traced.insert(use.name).second) {
      c.add(Severity::warning, "audit.xtrace_secret",
            fmt::format("set -x is on where ${} is expanded: bash prints the secret into the job log", use.name),
            "turn tracing off (set +x) around commands that use secrets", use.offset);
    }
  }
}

struct PlaceholderUse
{
  int offset = -1;
  int line = 0;
  bool blocks = false;  // in a directive sbatch or Slurm rejects (not --job-name/--comment)
};

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
        use(t, option.find("job-name") == std::string::npos && option.find("comment") == std::string::npos
                 && option.find("mail-user") == std::string::npos);
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
    if (t.empty() && eq == std::string::npos && previous.starts_with("-") && previous.find('=') == std::string::npos
        && generic_option_value(previous, word)) {
      t = word;
    }
    if (t.empty() && word.starts_with("--") && eq != std::string::npos && generic_option_value(word.substr(0, eq), value)) {
      t = value;
    }
    // The job runs whatever these say (a bad --mail-user only loses the mail).
    const bool cosmetic = word.starts_with("--job-name") || word.starts_with("-J") || word.starts_with("--comment")
                          || word.starts_with("--mail-user") || previous == "--job-name" || previous == "-J"
                          || previous == "--comment" || previous == "--mail-user";
    // `--job-name JOB_NAME`: any text is a job name (round 26's MegaMolBART
    // template), so a capitals word that names that option is not a stand-in.
    const bool named_option = t == word && (names_its_option(previous, word) || generic_option_value(previous, word));
    previous = word;
    if (!t.empty() && !(cosmetic && named_option)) {
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
  auto record = [&](const std::string& written, int offset, bool blocks) {
    // "$MEGATRON_DIR/pretrain_gpt.py" with MEGATRON_DIR=/path/to/Megatron-LM:
    // the path below a placeholder already seen is that placeholder used.
    std::string token = written;
    for (const auto& seen : order) {
      if (token.size() > seen.size() && token.starts_with(seen) && token[seen.size()] == '/') {
        token = seen;
        break;
      }
    }
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
      // Where its first character was written: a word read from a string the
      // script runs (`bash -c '…'`) has the string's offset, its characters
      // their own.
      const int first = !w.value.offsets.empty() && w.value.offsets.front() >= 0 ? w.value.offsets.front() : w.offset;
      record(t, first, false);
    }
  };
  // NCCL_SOCKET_IFNAME=xxx, HCCL_SOCKET_IFNAME=xxx, NCCL_IB_HCA=xxx: no network
  // interface or HCA is named with x alone (Linux names them eth0, ib0, hsn0,
  // enp65s0, mlx5_0), so in these the run of x is the stand-in x_filler finds
  // in #SBATCH values; the collective library then finds no such interface.
  auto interface_variable = [](const std::string& name) { return name.ends_with("_IFNAME") || name.ends_with("_HCA"); };
  for (const auto& a : m.assignments) {
    for (const auto& w : a.value) {
      if (w.known && !a.prefix) {
        check_word(w);
        if (interface_variable(a.name) && w.offset >= 0 && x_filler(w.text())
            && placeholder_token(w.text(), tmpl).empty()) {
          record(w.text(), w.offset, false);
        }
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
    bool shell = false;
    for (std::size_t i = 0; i < words.size(); ++i) {
      const std::string& t = words[i].text();
      shell = shell || t == "bash" || t == "sh" || t.ends_with("/bash") || t.ends_with("/sh");
      // `bash -c TEXT`: TEXT is a script, its words judged one by one below
      // (the launches read from it), where they were written.
      const bool script_text = shell && i > 0 && words[i - 1].known && words[i - 1].text().starts_with("-")
                               && !words[i - 1].text().starts_with("--") && words[i - 1].text().ends_with("c");
      if (words[i].known && !script_text) {
        check_word(words[i]);
      }
    }
  }
  // The file a `source`/`.` reads (held-out round 31: `source
  // /path/to/venv/bin/activate`): the evaluator reads the command itself, so
  // its word is taken from the text.
  for (int offset : m.sources) {
    if (offset < 0 || static_cast<std::size_t>(offset) >= m.text.size()) {
      continue;
    }
    const auto eol = m.text.find('\n', static_cast<std::size_t>(offset));
    const std::string line = m.text.substr(static_cast<std::size_t>(offset),
                                           eol == std::string::npos ? std::string::npos : eol - offset);
    const auto space = line.find_first_of(" \t");
    if (space == std::string::npos) {
      continue;
    }
    const auto from = line.find_first_not_of(" \t", space);
    if (from == std::string::npos) {
      continue;
    }
    const auto to = line.find_first_of(" \t;&|#", from);
    Word w;
    w.value.text = line.substr(from, to == std::string::npos ? std::string::npos : to - from);
    w.offset = offset + static_cast<int>(from);
    check_word(w);
  }
  // The program and arguments of each launch, also where the launch was read
  // from a string the script runs (`srun singularity exec IMG bash -c '…
  // accelerate launch … TODO_path/train.py TODO_flags'`, held-out round 28):
  // those words are no command of the script's own.
  for (const auto& l : m.launches) {
    if (l.program && l.program->known) {
      check_word(*l.program);
    }
    for (const auto& w : l.args) {
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
    // `HF_TOKEN="Your_HF_key"` with HF_HUB_OFFLINE=1 exported: the Hub client
    // sends no request, so no token (huggingface_hub docs, "Environment
    // variables", HF_HUB_OFFLINE: "no HTTP calls are made to the Hub").
    // Round 24's Leonardo job. Advice then: nothing fails.
    const bool hub_token = std::any_of(m.assignments.begin(), m.assignments.end(), [&](const Assignment& a) {
      return (a.name == "HF_TOKEN" || a.name == "HUGGING_FACE_HUB_TOKEN" || a.name == "HF_API_TOKEN")
             && a.value_offset >= 0 && first.offset >= a.value_offset && first.offset < a.value_end;
    });
    const bool offline = std::any_of(m.assignments.begin(), m.assignments.end(), [](const Assignment& a) {
      return (a.name == "HF_HUB_OFFLINE" || a.name == "TRANSFORMERS_OFFLINE") && a.exported && a.known
             && !a.value.empty() && a.value.front().text() == "1";
    });
    if (hub_token && offline && !blocks) {
      message += " (HF_HUB_OFFLINE=1 is exported, so the Hub is never called and the token never sent)";
    }
    c.add(blocks                  ? Severity::error
          : hub_token && offline ? Severity::advice
                                 : Severity::warning,
          "audit.placeholder", std::move(message),
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
