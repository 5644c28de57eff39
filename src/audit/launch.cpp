// Walking a command's chain of launchers (launch.hpp).
#include "audit/launch.hpp"

#include "audit/launch_tools.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace lg::audit::detail {

namespace {

bool is_torchrun_module(const std::string& module)
{
  return module == "torch.distributed.run" || module == "torch.distributed.launch";
}

// NAME=value, as bash would read it in front of a command.
bool assignment_word(const std::string& text)
{
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || (std::isdigit(static_cast<unsigned char>(text[0])) != 0)) {
    return false;
  }
  return std::all_of(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(eq),
                     [](unsigned char c) { return std::isalnum(c) != 0 || c == '_'; });
}

bool is_wrapper(const std::string& base);

bool is_python(const std::string& base)
{
  return base == "python" || base == "python3" || base.starts_with("python3.");
}

class ChainParser
{
public:
  ChainParser(std::vector<Word> words, const SubScriptFn& sub_script, const StdinScript* stdin_script)
    : m_words(std::move(words)),
      m_sub(sub_script),
      m_stdin(stdin_script)
  {
  }

  std::optional<Launch> run();

private:
  const Word* peek(std::size_t k = 0) const { return m_i + k < m_words.size() ? &m_words[m_i + k] : nullptr; }
  void options(LaunchStage& stage, const OptionGrammar& grammar);
  bool long_option(LaunchStage& stage, const OptionGrammar& grammar);
  void short_option(LaunchStage& stage, const OptionGrammar& grammar);
  void finish_program(bool python);
  void srun_exports(const LaunchStage& stage);
  bool step();
  bool python_step();
  bool shell_step();
  bool ssh_step();
  bool enter(SubScript sub);
  bool read_stdin();
  bool env_step();
  bool wrapper_step(const std::string& base);
  LaunchStage& push(const std::string& tool);
  LaunchStage& push_virtual(const std::string& tool, int offset);

  std::vector<Word> m_words;
  const SubScriptFn& m_sub;
  const StdinScript* m_stdin;  // consumed (nullptr) once read
  std::size_t m_i = 0;
  Launch m_launch;
  int m_sub_depth = 0;
};

LaunchStage& ChainParser::push(const std::string& tool)
{
  LaunchStage stage;
  stage.tool = tool;
  stage.offset = m_words[m_i].offset;
  m_launch.stages.push_back(std::move(stage));
  ++m_i;
  return m_launch.stages.back();
}

LaunchStage& ChainParser::push_virtual(const std::string& tool, int offset)
{
  LaunchStage stage;
  stage.tool = tool;
  stage.offset = offset;
  m_launch.stages.push_back(std::move(stage));
  return m_launch.stages.back();
}

bool ChainParser::long_option(LaunchStage& stage, const OptionGrammar& grammar)
{
  const Word& w = m_words[m_i];
  const std::size_t dashes = w.text().starts_with("--") ? 2 : 1;
  LaunchOption option;
  option.offset = w.offset;
  std::string name = w.text().substr(dashes);
  if (const auto eq = name.find('='); eq != std::string::npos) {
    option.value = word_tail(w, dashes + eq + 1);
    name.resize(eq);
  }
  option.name = name;
  ++m_i;
  const std::string norm = normalise_option(name);
  const bool flag = grammar.flags.count(norm) != 0 || (grammar.flags_by_default && !option.value);
  if (!option.value && !flag) {
    const int count = grammar.two_values.count(norm) != 0 ? 2 : 1;
    for (int k = 0; k < count; ++k) {
      const Word* next = peek();
      if (next == nullptr || (next->known && (next->text().starts_with("-") || looks_like_program(next->text())))) {
        break;
      }
      if (!option.value) {
        option.value = *next;
      }
      ++m_i;
    }
  }
  stage.options.push_back(std::move(option));
  return true;
}

void ChainParser::short_option(LaunchStage& stage, const OptionGrammar& grammar)
{
  const Word& w = m_words[m_i];
  LaunchOption option;
  option.offset = w.offset;
  option.name = w.text().substr(1, 1);
  ++m_i;
  const bool flag = grammar.short_flags.find(option.name[0]) != std::string::npos;
  if (w.text().size() > 2 && !flag) {
    option.value = word_tail(w, w.text()[2] == '=' ? 3 : 2);
  } else if (!flag && !grammar.flags_by_default) {
    const Word* next = peek();
    if (next != nullptr && !(next->known && looks_like_program(next->text()))) {
      option.value = *next;
      ++m_i;
    }
  }
  stage.options.push_back(std::move(option));
}

void ChainParser::options(LaunchStage& stage, const OptionGrammar& grammar)
{
  while (const Word* w = peek()) {
    const std::string& t = w->text();
    if (!w->known && w->opaque && !t.starts_with("-")) {
      // `srun $SRUN_ARGS python …`: an unknown bundle of options.
      const Word* next = peek(1);
      if (next == nullptr || !next->known || !looks_like_program(next->text())) {
        return;
      }
      stage.options.push_back(LaunchOption{"?", *w, w->offset});
      ++m_i;
      continue;
    }
    if (t == "--") {
      ++m_i;
      return;
    }
    if (!t.starts_with("-") || t == "-") {
      return;
    }
    if (t.starts_with("--") || (grammar.single_dash_long && t.size() > 2)) {
      long_option(stage, grammar);
    } else {
      short_option(stage, grammar);
    }
  }
}

void ChainParser::finish_program(bool python)
{
  if (m_i >= m_words.size()) {
    return;
  }
  m_launch.program = m_words[m_i];
  m_launch.python = python;
  m_launch.args.assign(m_words.begin() + static_cast<std::ptrdiff_t>(m_i) + 1, m_words.end());
  m_i = m_words.size();
}

void ChainParser::srun_exports(const LaunchStage& stage)
{
  const LaunchOption* exp = stage.find("export");
  if (exp == nullptr || !exp->value) {
    return;
  }
  const Word& value = *exp->value;
  bool all = false;
  std::size_t start = 0;
  const std::string& t = value.text();
  for (std::size_t i = 0; i <= t.size(); ++i) {
    if (i < t.size() && t[i] != ',') {
      continue;
    }
    const std::string item = t.substr(start, i - start);
    if (item == "ALL") {
      all = true;
    } else if (const auto eq = item.find('='); eq != std::string::npos && eq > 0) {
      Assignment a;
      a.name = item.substr(0, eq);
      a.value.push_back(word_tail(word_tail(value, 0), start + eq + 1));
      a.value.back().value.text.resize(std::min(a.value.back().value.text.size(), i - start - eq - 1));
      a.value.back().value.offsets.resize(a.value.back().value.text.size());
      a.known = value.known;
      a.exported = true;
      a.prefix = true;
      a.offset = start < value.value.offsets.size() ? value.value.offsets[start] : value.offset;
      m_launch.env.push_back(std::move(a));
    }
    start = i + 1;
  }
  m_launch.export_none = value.known && !all;
}

// python [-u …] (-m MODULE | -c CODE | SCRIPT) ARGS…; -m torch.distributed.run
// continues as torchrun.
bool ChainParser::python_step()
{
  push("python");
  while (const Word* w = peek()) {
    const std::string& t = w->text();
    if ((t == "-m" || t == "-c") && peek(1) != nullptr) {
      const Word target = t == "-c" ? *w : *peek(1);
      m_i += t == "-c" ? 1 : 2;
      if (t == "-m" && is_torchrun_module(target.text())) {
        options(push_virtual("torchrun", target.offset), torchrun_grammar());
        finish_program(true);
        return false;
      }
      m_launch.program = target;
      m_launch.python = true;
      m_launch.module = t == "-m";
      m_launch.args.assign(m_words.begin() + static_cast<std::ptrdiff_t>(m_i), m_words.end());
      m_i = m_words.size();
      return false;
    }
    if (!t.starts_with("-") || t == "-" || t.starts_with("--")) {
      break;
    }
    short_option(m_launch.stages.back(), python_grammar());
  }
  finish_program(true);
  return false;
}

// bash|sh [-lxe …] -c TEXT: the evaluator reads TEXT as a script; the chain
// continues with the launching command found there. Without -c and without a
// file to run (or with -s), the shell reads its commands from standard input:
// a heredoc's body is read the same way (bash(1), "-s").
bool ChainParser::shell_step()
{
  push("bash");
  bool from_stdin = false;
  while (const Word* w = peek()) {
    const std::string& t = w->text();
    if (!t.starts_with("-") || t == "-" || t == "--") {
      break;
    }
    ++m_i;
    if (t.find('c') != std::string::npos && !t.starts_with("--") && peek() != nullptr && m_sub_depth < 3) {
      return enter(m_sub(*peek()));
    }
    from_stdin = from_stdin || (!t.starts_with("--") && t.find('s') != std::string::npos);
  }
  if (peek() == nullptr || from_stdin) {
    return read_stdin();
  }
  finish_program(false);
  return false;
}

// Continue the chain with the first launching command of a sub-script.
bool ChainParser::enter(SubScript sub)
{
  if (!sub.found) {
    finish_program(false);
    return false;
  }
  ++m_sub_depth;
  m_launch.env.insert(m_launch.env.end(), sub.env.begin(), sub.env.end());
  m_launch.sources = m_launch.sources || sub.sourced;
  m_words = std::move(sub.words);
  m_i = 0;
  return true;
}

bool ChainParser::read_stdin()
{
  if (m_stdin == nullptr || m_sub_depth >= 3) {
    finish_program(false);
    return false;
  }
  const StdinScript* script = m_stdin;
  m_stdin = nullptr;
  return enter(script->read(script->text));
}

// ssh [OPTIONS] HOST [COMMAND…]: COMMAND (or, without one, the heredoc on
// standard input) runs on HOST. The options that take a value are OpenSSH's
// (ssh(1) synopsis). Not modelled: the batch shell's exports do not travel
// over ssh (sshd accepts only what AcceptEnv lists); the environment is read
// as if they did, so a missing variable there is not reported.
bool ChainParser::ssh_step()
{
  push("ssh");
  while (const Word* w = peek()) {
    const std::string& t = w->text();
    if (!t.starts_with("-") || t.size() < 2) {
      break;
    }
    ++m_i;
    if (t.size() == 2 && std::string_view("BbcDEeFIiJLlmOopPQRSWw").find(t[1]) != std::string_view::npos) {
      ++m_i;
    }
  }
  if (peek() == nullptr) {
    finish_program(false);
    return false;
  }
  ++m_i;  // the host
  if (peek() == nullptr) {
    return read_stdin();
  }
  return true;
}

// env [-i] [-u NAME] NAME=VALUE… COMMAND
bool ChainParser::env_step()
{
  push("env");
  while (const Word* a = peek()) {
    const auto eq = a->text().find('=');
    if (a->text() == "-u" || a->text() == "-i") {
      m_i += a->text() == "-u" ? 2 : 1;
    } else if (eq != std::string::npos && eq > 0 && !a->text().starts_with("-")) {
      Assignment env;
      env.name = a->text().substr(0, eq);
      env.value.push_back(word_tail(*a, eq + 1));
      env.known = a->known;
      env.exported = true;
      env.prefix = true;
      env.offset = a->offset;
      m_launch.env.push_back(std::move(env));
      ++m_i;
    } else {
      break;
    }
  }
  return true;
}

bool is_wrapper(const std::string& base)
{
  static constexpr std::array<std::string_view, 13> k_wrappers = {"numactl",
                                                                  "taskset",
                                                                  "nice",
                                                                  "ionice",
                                                                  "stdbuf",
                                                                  "nsys",
                                                                  "ncu",
                                                                  "time",
                                                                  "exec",
                                                                  "nohup",
                                                                  "apptainer",
                                                                  "singularity",
                                                                  "singularity_wrapper"};
  for (auto wrapper : k_wrappers) {
    if (base == wrapper) {
      return true;
    }
  }
  return false;
}

// numactl/taskset/nsys profile/apptainer exec IMAGE/…: options, then the command.
// CSC's `singularity_wrapper exec COMMAND` (the LUMI, Puhti and Mahti
// container modules; CSC docs, "Running existing containers") takes its image
// from $SING_IMAGE: a subcommand, no image word.
bool ChainParser::wrapper_step(const std::string& base)
{
  LaunchStage& stage = push(base);
  const bool csc = base == "singularity_wrapper";
  if (base == "nsys" || base == "apptainer" || base == "singularity" || csc) {
    ++m_i;  // the subcommand: profile, exec, run
  }
  const bool container = base == "apptainer" || base == "singularity" || csc;
  options(stage, base == "numactl" || base == "taskset" ? numactl_grammar() : container ? apptainer_grammar() : generic_grammar());
  if ((base == "apptainer" || base == "singularity") && m_i < m_words.size()) {
    ++m_i;  // the image
  }
  if (base == "taskset" && m_i < m_words.size() && !looks_like_program(m_words[m_i].text())) {
    ++m_i;  // the cpu list
  }
  return true;
}

// `$(which torchrun)`, `$(command -v python3)`, `$(type -P deepspeed)` as
// the command word: bash runs the path the lookup printed, the file NAME found
// on PATH (bash(1), SHELL BUILTIN COMMANDS: `command -v`, `type -P`; which(1)),
// so the program is NAME. nullopt for any other unknown word.
std::optional<std::string> looked_up_program(const Word& w)
{
  const std::string& t = w.text();
  if (!t.starts_with("$(") || !t.ends_with(")") || t.find(')') != t.size() - 1) {
    return std::nullopt;
  }
  std::vector<std::string> words;
  std::string cur;
  for (char c : t.substr(2, t.size() - 3)) {
    if (c == ' ' || c == '\t') {
      if (!cur.empty()) {
        words.push_back(cur);
      }
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) {
    words.push_back(cur);
  }
  const bool which = words.size() == 2 && words[0] == "which";
  const bool command_v = words.size() == 3 && (words[0] == "command" || words[0] == "type")
                         && (words[1] == "-v" || words[1] == "-P" || words[1] == "-p");
  const std::string& name = words.empty() ? t : words.back();
  const bool plain = !name.empty() && name.find_first_of("$`\"'<>|&;*?[") == std::string::npos;
  if ((which || command_v) && plain) {
    return basename_of(name);
  }
  return std::nullopt;
}

// One wrapper of the chain; false when the chain ended.
bool ChainParser::step()
{
  const Word& w = m_words[m_i];
  const auto looked_up = w.known ? std::nullopt : looked_up_program(w);
  const std::string base = looked_up ? *looked_up : basename_of(w.text());
  const std::string& last = m_launch.stages.empty() ? std::string() : m_launch.stages.back().tool;
  if ((last == "srun" || last == "mpirun") && assignment_word(w.text())) {
    // srun/mpirun exec their first operand: `srun NAME=v cmd` runs a file
    // called "NAME=v". Read on as `env NAME=v cmd` for the other checks.
    m_launch.exec_assignment = w.offset;
    return env_step();
  }
  if (!w.known && !looked_up) {
    const Word* m = peek(1);
    const Word* module = peek(2);
    if (m != nullptr && module != nullptr && m->text() == "-m" && is_torchrun_module(module->text())) {
      return python_step();  // {{{python}}} -m torch.distributed.run in a template
    }
    finish_program(false);
    return false;
  }
  if (base == "srun") {
    LaunchStage& stage = push("srun");
    options(stage, srun_grammar());
    srun_exports(m_launch.stages.back());
    return true;
  }
  if (base == "mpirun" || base == "mpiexec" || base == "orterun") {
    options(push("mpirun"), mpirun_grammar());
    return true;
  }
  if (base == "torchrun" || base == "deepspeed" || base == "ft_launcher") {
    // ft_launcher (NVIDIA nvidia-resiliency-ext, fault_tolerance/launcher.py)
    // is torch.distributed.run with --ft-* options added: torchrun's grammar
    // and meaning (--nnodes, --nproc-per-node, --node-rank).
    const bool deepspeed = base == "deepspeed";
    options(push(deepspeed ? base : "torchrun"), deepspeed ? deepspeed_grammar() : torchrun_grammar());
    finish_program(true);
    return false;
  }
  if (is_python(base)) {
    return python_step();
  }
  if ((base == "uv" || base == "accelerate") && peek(1) != nullptr
      && (peek(1)->text() == "run" || peek(1)->text() == "launch")) {
    LaunchStage& stage = push(base);
    ++m_i;
    options(stage, uv_grammar());
    if (base == "accelerate") {
      finish_program(true);
      return false;
    }
    return true;
  }
  if (base == "ray" && peek(1) != nullptr && peek(2) != nullptr && peek(1)->text() == "job"
      && peek(2)->text() == "submit") {
    // `ray job submit [OPTIONS] -- ENTRYPOINT…` (Ray, "Ray Jobs CLI API
    // Reference": the entrypoint is one shell command run on the Ray cluster's
    // head node, which starts the workers itself): the command after `--`.
    push("ray");
    m_i += 2;
    for (std::size_t k = m_i; k < m_words.size(); ++k) {
      if (m_words[k].known && m_words[k].text() == "--") {
        m_i = k + 1;
        return true;
      }
    }
    options(m_launch.stages.back(), generic_grammar());
    return true;
  }
  if (base == "bash" || base == "sh") {
    return shell_step();
  }
  if (base == "ssh") {
    return ssh_step();
  }
  if (base == "env") {
    return env_step();
  }
  if ((base == "docker" || base == "podman") && peek(1) != nullptr && peek(1)->text() == "run") {
    // `docker run [OPTIONS] IMAGE COMMAND…`: the container runs COMMAND
    // (Docker docs, "docker container run"), read as the launch.
    LaunchStage& stage = push(base);
    ++m_i;  // run
    options(stage, docker_grammar());
    if (m_i < m_words.size()) {
      ++m_i;  // the image
    }
    return true;
  }
  if (is_wrapper(base)) {
    return wrapper_step(base);
  }
  finish_program(base.ends_with(".py"));
  return false;
}

std::optional<Launch> ChainParser::run()
{
  while (m_i < m_words.size() && step()) {
  }
  static constexpr std::array<std::string_view, 6> k_launchers = {"srun", "mpirun", "torchrun",
                                                                  "deepspeed", "accelerate", "python"};
  for (auto tool : k_launchers) {
    if (m_launch.has(std::string(tool))) {
      return std::move(m_launch);
    }
  }
  if (m_launch.python) {
    return std::move(m_launch);
  }
  return std::nullopt;
}

} // namespace

std::optional<Launch> parse_launch(const std::vector<Word>& words, const SubScriptFn& sub_script,
                                   const StdinScript* stdin_script)
{
  if (words.empty()) {
    return std::nullopt;
  }
  ChainParser parser(words, sub_script, stdin_script);
  return parser.run();
}

}  // namespace lg::audit::detail
