// Internal to src/audit: the static variable environment and word expansion.
// A value is known when every expansion in it resolved to text written in the
// script (or derived from the #SBATCH directives); anything else - positional
// parameters, command substitutions, variables the script never sets - is
// unknown, never guessed. `${VAR:-default}` for a VAR the script never sets
// takes the default (the value the script itself states).
#pragma once

#include "audit/lexer.hpp"
#include "audit/script_model.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lg::audit::detail {

struct Var
{
  std::vector<Word> items;  // one item for a string; the elements for an array
  bool is_array = false;
  bool known = true;
  bool exported = false;
  int offset = -1;  // where it was last assigned
};

using Variables = std::map<std::string, Var>;

struct ExpandContext
{
  const Variables& vars;
  std::vector<VarUse>* uses = nullptr;  // where uses are recorded (may be null)
  int command = -1;
  bool batch_shell = true;
  int depth = 0;
  // `${NAME:=default}` / `${NAME=default}` assign NAME when it is unset (or
  // empty, with ':'): each such assignment, in order (may be null).
  std::vector<std::pair<std::string, Word>>* defaults = nullptr;
};

enum class Split { yes, no };

// Expand `word`: quote removal, parameter/arithmetic expansion and (with
// Split::yes) field splitting of unquoted expansions.
std::vector<Word> expand(const RawWord& word, const ExpandContext& context, Split split);

// Expand `word` in assignment context (no splitting) into one Word.
Word expand_one(const RawWord& word, const ExpandContext& context);

// Evaluate the integer expression of $(( … )); nullopt when unknown.
std::optional<long long> arithmetic(const std::string& expression, const Variables& vars);

// Join `items` with single spaces.
Word join_words(const std::vector<Word>& items);

} // namespace lg::audit::detail
