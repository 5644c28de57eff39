// Internal to src/audit: the evaluator that walks lexed commands in script
// order, keeps the static variable environment, and records assignments,
// uses, set -x, sources and launches into a ScriptModel.
#pragma once

#include "audit/expand.hpp"
#include "audit/launch.hpp"
#include "audit/lexer.hpp"

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
  SubScript run_sub(const Word& text);

  ScriptModel& m_model;
  Variables m_vars;
  bool m_batch_shell;
  bool m_template;
  int m_depth;
  bool m_allexport = false;
  int m_blocks = 0;         // open if/for/while/until/case/{ blocks
  int m_command_depth = 0;  // depth of the command being added
};

} // namespace lg::audit::detail
