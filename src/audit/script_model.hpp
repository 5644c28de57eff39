// The static model of a shell script that audit reasons about: #SBATCH
// directives, assignments/exports/unsets in order, the commands that launch
// training with their expanded argv, and where every piece came from (byte
// offsets into the script; ScriptModel::position turns one into line:column).
// Produced by read_script (script_reader.hpp); pure data.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lg::audit {

struct Position
{
  int line = 0;    // 1-based; 0 = unknown
  int column = 0;  // 1-based; 0 = unknown
};

// Text whose characters each remember the script offset they came from: -1
// when made up (a space joining array items), <= -2 for the characters of an
// unknown expansion kept as source text (the expansion was at -(o + 2)).
struct Text
{
  std::string text;
  std::vector<int> offsets;

  void append(char c, int offset)
  {
    text.push_back(c);
    offsets.push_back(offset);
  }
  void append(const Text& other)
  {
    text += other.text;
    offsets.insert(offsets.end(), other.offsets.begin(), other.offsets.end());
  }
  int first_offset() const
  {
    for (int o : offsets) {
      if (o >= 0) {
        return o;
      }
    }
    return -1;
  }
};

// One word after quote removal and expansion.
struct Word
{
  Text value;               // the expanded text (unknown parts keep their source text)
  int offset = -1;          // where the word starts in the script
  bool known = true;        // false when an expansion could not be resolved
  bool opaque = false;      // an unquoted unknown expansion: any number of words
  bool list = false;        // an unknown array's "${NAME[@]}": a list of words, never one flag's value
  std::vector<std::string> expanded;  // variables expanded into it, in order

  const std::string& text() const { return value.text; }
};

// One #SBATCH option.
struct Directive
{
  std::string name;   // canonical long name: "nodes", "gpus-per-node", "signal", …
  std::string spelled;  // as written: "-N", "--nodes"
  std::string value;
  bool has_value = false;
  int offset = -1;        // of the option word
  int value_offset = -1;  // of the value
  bool late = false;      // after the first command: sbatch does not read it
  // Not judged as the job's: a late line that repeats an option read above the
  // first command (a second job's header). A late line that sets an option
  // nothing above sets is read as the author meant it (audit_text), and
  // audit.directive_ignored says sbatch drops it.
  bool ignored = false;
  // The heterogeneous job component it belongs to: `#SBATCH hetjob` (or the
  // older `packjob`) starts the next one (Slurm sbatch(1), "HETEROGENEOUS JOB
  // SUPPORT"; src/sbatch/opt.c, _opt_batch_script).
  int component = 0;
};

enum class AssignKind { assign, export_only, unset };

// One variable assignment, export or unset, in script order.
struct Assignment
{
  std::string name;
  AssignKind kind = AssignKind::assign;
  std::vector<Word> value;  // one item, or the array elements
  bool is_array = false;
  bool known = true;        // value fully known
  bool exported = false;    // exported after this statement
  bool literal = false;     // the value was written literally (no expansion)
  bool prefix = false;      // `NAME=v command`: only for that command
  bool append = false;      // ARR+=(…): `value` holds only the appended elements
  int offset = -1;          // of the name
  int value_offset = -1;    // of the first value character (-1: none)
  int value_end = -1;       // one past the value's last source character
  int command = -1;         // index into ScriptModel::commands
};

// A use of $NAME.
struct VarUse
{
  std::string name;
  int offset = -1;
  int command = -1;
  bool batch_shell = true;  // expanded by the batch shell (not inside a task's bash -c '…')
  bool guarded = false;     // ${NAME:-…}, ${NAME:=…}, ${NAME:?…}, ${NAME+…}: unset is handled
};

// An option of one launcher stage: "--nproc_per_node=8" -> {nproc_per_node, 8}.
struct LaunchOption
{
  std::string name;  // without dashes, '_' kept as written
  std::optional<Word> value;
  int offset = -1;
};

struct LaunchStage
{
  std::string tool;  // srun | mpirun | torchrun | deepspeed | python | uv | bash | …
  std::vector<LaunchOption> options;
  int offset = -1;

  const LaunchOption* find(const std::string& name) const;  // '-'/'_' insensitive
  // The same option given again later in this stage (argparse and srun keep
  // the last value), or nullptr.
  const LaunchOption* given_again(const LaunchOption& option) const;
  // The option whose value holds script `offset`, or nullptr.
  const LaunchOption* option_at(int at) const;
};

// A command that starts processes: srun, torchrun, python -m
// torch.distributed.run, uv run, mpirun, deepspeed, or a Python program.
struct Launch
{
  int command = -1;
  std::vector<LaunchStage> stages;  // outermost first
  std::optional<Word> program;      // the Python script or module (training), or the program
  bool python = false;              // program is run by Python
  bool module = false;              // program is a module name (python -m, torchrun -m/--module)
  std::vector<Word> args;           // words after the program
  // Variables this launch adds on top of the exported ones (prefix
  // assignments, env NAME=v, srun --export=ALL,NAME=v, exports inside bash -c).
  std::vector<Assignment> env;
  bool export_none = false;  // srun --export=NONE (or a list without ALL)
  bool sources = false;      // its own shell (bash -c '…') sources a file first: more variables may be set
  int exec_assignment = -1;  // `srun NAME=v cmd`: offset of the NAME=v srun would exec as a program

  bool has(const std::string& tool) const;
  const LaunchStage* stage(const std::string& tool) const;
};

struct Command
{
  int begin = -1;  // offset of the first character
  int end = -1;    // one past the last character
  std::vector<Word> words;  // expanded, prefix assignments removed
  int depth = 0;   // nesting of if/for/while/function blocks
  std::string terminator;  // what ends it: ";", "&", "&&", "||", "|", "\n", ")" or ""
  std::vector<Word> outputs;  // files its `>`/`>>`/`&>` redirections write, expanded
};

struct ScriptModel
{
  std::string text;
  std::vector<int> line_starts;  // offset of each line's first character
  std::vector<Directive> directives;
  // Words of read #SBATCH lines that are neither an option nor its value
  // (`#SBATCH -p your partition`: "partition"), with their offsets.
  std::vector<std::pair<int, std::string>> directive_strays;
  int first_command_offset = -1;  // where sbatch stops reading directives
  int components = 1;             // heterogeneous job components (1: an ordinary job)
  std::vector<Command> commands;
  std::vector<Assignment> assignments;
  std::vector<VarUse> uses;
  // $NAME in the body of an unquoted heredoc that a command reads as data
  // (`cat > env.sh <<EOF`): the batch shell expands it (bash manual, "Here
  // Documents"), so NAME is used; kept apart from `uses`, whose rules judge
  // command words.
  std::vector<VarUse> heredoc_uses;
  std::vector<Launch> launches;
  std::vector<std::pair<int, bool>> xtrace;  // (offset, on) for set -x / set +x
  std::vector<int> sources;                  // offsets of `source`/`.` commands
  std::vector<std::pair<int, int>> heredocs; // [begin, end) offsets of heredoc bodies
  std::vector<int> angle_redirects;          // offsets of unquoted `<WORD>` (lexer.hpp)
  std::vector<int> test_redirects;           // offsets of `>`/`<` inside [ … ] (lexer.hpp)
  // `export /=…`: a word that is not a variable name (offset, the word).
  std::vector<std::pair<int, std::string>> invalid_names;
  // [begin, end) of the commands in branches the script's own values never
  // take (shell_condition.hpp): not run, but their text still holds what a
  // person must fill in (placeholders).
  std::vector<std::pair<int, int>> dead_commands;
  // [begin, end) of function bodies: there $1, $@ and $* are the function's
  // arguments, given where it is called (bash manual, "Shell Functions").
  std::vector<std::pair<int, int>> function_bodies;

  // Assignments in front of a builtin that runs nothing (`NCCL_DEBUG=INFO cd
  // /opt/NeMo`), in the script or in a `bash -c "…"` it runs: each is the
  // offset of the first assignment, the names, and the builtin.
  struct BuiltinPrefix
  {
    int offset = -1;
    std::string names;
    std::string builtin;
  };
  std::vector<BuiltinPrefix> builtin_prefixes;
  // `port= 6379`: an empty assignment in front of a number run as a command
  // (offset of the name, the name, the number).
  struct SpacedAssignment
  {
    int offset = -1;
    std::string name;
    std::string word;
  };
  std::vector<SpacedAssignment> spaced_assignments;  bool xtrace_from_shebang = false;          // #!/bin/bash -x

  Position position(int offset) const;
  bool in_function(int offset) const
  {
    return std::any_of(function_bodies.begin(), function_bodies.end(),
                       [offset](const auto& body) { return offset >= body.first && offset < body.second; });
  }
  int line_of(int offset) const { return position(offset).line; }
  // Offset of the first character of `line` (1-based), or text.size().
  int line_begin(int line) const;
  // The last directive called `name` that sbatch reads for heterogeneous
  // job component `component` (0: where the batch script runs, and where an
  // srun without --het-group starts its step), or nullptr; nullptr for any
  // component below 0 (not known).
  const Directive* directive(const std::string& name, int component = 0) const;
};

} // namespace lg::audit
