// Internal to src/audit: the evaluator that walks lexed commands in script
// order, keeps the static variable environment, and records assignments,
// uses, set -x, sources and launches into a ScriptModel.
#pragma once

#include "audit/expand.hpp"
#include "audit/launch.hpp"
#include "audit/lexer.hpp"

#include <optional>
#include <string>
#include <vector>

namespace lg::audit::detail {

class Evaluator
{
public:
  // `batch_shell`: false when evaluating the text of a task's `bash -c`.
  Evaluator(ScriptModel& model, Variables vars, bool batch_shell, bool template_mode, int depth);

  void run(const LexResult& lexed);

private:
  void command(const RawCommand& raw);
  void track_blocks(const RawCommand& raw);
  int add_command(const RawCommand& raw);
  Assignment make_assignment(const RawWord& word, int command);
  void apply(Assignment assignment, bool export_it);
  void apply_defaults(std::vector<std::pair<std::string, Word>>& defaults, int command);
  void declare(const RawCommand& raw, std::size_t from, const std::string& builtin, int command);
  void unset(const std::vector<Word>& words, int command);
  void set_options(const std::vector<Word>& words, int offset);
  std::vector<Word> expand_all(const RawCommand& raw, std::size_t from, int command);
  // `batch_expanded`: the text is expanded by the batch shell itself (an
  // unquoted heredoc), so its variables are the batch shell's, not only the
  // exported ones a task's shell inherits.
  SubScript run_sub(const Word& text, bool batch_expanded);
  std::optional<Launch> eval_launch(const std::vector<Word>& words, const SubScriptFn& hook);
  bool read_heredoc(const RawCommand& raw, std::size_t from, int command);
  void record_builtin_prefix(const std::vector<Assignment>& prefix, const std::string& name);
  void record_heredoc_uses(const Text& body, int command);

  ScriptModel& m_model;
  Variables m_vars;
  bool m_batch_shell;
  bool m_template;
  int m_depth;
  bool m_allexport = false;
  int m_blocks = 0;         // open if/for/while/until/case/{ blocks
  int m_command_depth = 0;  // depth of the command being added

  // The open blocks, for the branches the script's own values decide: an
  // `if` branch whose condition is known false, or after a branch known
  // taken, is dead (its commands never run), and so is all inside it.
  struct Block
  {
    bool is_if = false;
    bool parent_dead = false;
    bool dead = false;   // the current branch (or condition) never runs
    bool taken = false;  // an earlier branch's condition is known true
    std::optional<bool> condition;  // of the last if/elif, once evaluated
    bool function = false;  // a function body: `name() {` or `function name {`
    int begin = -1;
  };
  std::vector<Block> m_open;
  bool m_function_header = false;  // the last command was `name (`: a function definition's `{` follows
  bool m_condition = false;  // the command being read is an if/elif condition
  bool m_negated = false;    // … written `if ! …`
  bool dead() const { return !m_open.empty() && m_open.back().dead; }
  void enter_branch(const std::string& keyword);
};

} // namespace lg::audit::detail
