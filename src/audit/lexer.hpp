// Internal to src/audit: a linear, hand-written shell lexer. It splits script
// text into commands of raw words (quotes, escapes, $-expansions, arrays,
// redirections and heredocs understood, nothing executed). Every loop
// advances at least one character; nesting is bounded, so any input
// terminates in time linear in its length (times the bounded depth).
#pragma once

#include "audit/script_model.hpp"

#include <optional>
#include <string>
#include <vector>

namespace lg::audit::detail {

enum class PartKind { literal, param, command, arith };

struct Part
{
  PartKind kind = PartKind::literal;
  bool quoted = false;  // inside "…" or '…' (no word splitting)
  Text text;            // literal characters, or the raw text inside $(…) / $((…))
  // param only: ${name[index]op arg}
  std::string name;     // "VAR", "1", "@", "#", …
  std::string index;    // "@", "*", "0", … or ""
  std::string op;       // ":-", "-", ":=", ":+", "+", ":?", "len", "other", or ""
  Text arg;             // the raw word after op
  int offset = -1;      // of the '$' (or the first literal character)
};

struct RawWord
{
  std::vector<Part> parts;
  int begin = -1;
  int end = -1;
  bool array = false;              // NAME=( … ) / NAME+=( … )
  std::vector<RawWord> elements;   // the array's words
};

struct RawCommand
{
  std::vector<RawWord> words;
  int begin = -1;
  int end = -1;
  std::string terminator;  // ";", "&", "&&", "||", "|", "\n", ")" or "" at end
  // The body of the first heredoc the command reads (`bash -s <<EOF`), and
  // whether its delimiter was quoted (`<<'EOF'`: the body is not expanded).
  std::optional<Text> heredoc;
  bool heredoc_quoted = false;
  // The targets of its output redirections (`> FILE`, `>> FILE`, `&> FILE`),
  // in order; fd duplications (`>&2`) are not files.
  std::vector<RawWord> outputs;
};

struct LexResult
{
  std::vector<RawCommand> commands;
  std::vector<std::pair<int, int>> heredocs;
  // Offsets of an unquoted `<WORD>` that bash reads as two redirections
  // (`<WORD` from a file, `>` into the next word): a placeholder left in.
  std::vector<int> angle_redirects;
  // Offsets of a `>` or `<` between `[` (or `test`) and its `]`: a file
  // redirection where a comparison was meant.
  std::vector<int> test_redirects;
};

// Lex `source`. `depth` bounds recursion through nested $( … ) parsing.
LexResult lex(const Text& source, int depth = 0);

// Parse the inside of ${ … } (without the braces) into a param part.
Part parse_braced(const Text& inside, int dollar_offset, bool quoted);

// True if `c` may start / continue a shell variable name.
bool name_start(char c);
bool name_char(char c);

// If `word` starts with an unquoted NAME= or NAME+=, return the length of
// "NAME" and set `append`; else 0.
std::size_t assignment_prefix(const RawWord& word, bool& append);


} // namespace lg::audit::detail
