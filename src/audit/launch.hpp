// Internal to src/audit: recognising launch lines. A launch line is a command
// whose chain of wrappers (srun, mpirun, torchrun, python -m
// torch.distributed.run, uv run, deepspeed, env, numactl, bash -c, …) ends in
// a program; each wrapper's options are read with that tool's grammar.
#pragma once

#include "audit/script_model.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace lg::audit::detail {

// What `bash -c TEXT` runs, as the evaluator saw it: the words of the first
// launching command inside TEXT and the variables exported before it there.
struct SubScript
{
  bool found = false;
  std::vector<Word> words;
  std::vector<Assignment> env;
  bool sourced = false;  // TEXT sources a file before that command
};
using SubScriptFn = std::function<SubScript(const Word& text)>;

// The script a command reads on standard input: the body of its heredoc
// (`bash -s <<EOF`, `ssh host bash <<EOF`, `ssh host <<EOF`), read by `read`
// as `bash -c TEXT` is read by the sub-script hook.
struct StdinScript
{
  Word text;
  SubScriptFn read;
};

// Return the launch that `words` (one expanded command) performs, or nullopt
// when the command starts nothing (echo, mkdir, a plain program that is not
// Python and not under a launcher). `stdin_script`: what the command reads on
// standard input, if it is a heredoc.
std::optional<Launch> parse_launch(const std::vector<Word>& words, const SubScriptFn& sub_script,
                                   const StdinScript* stdin_script = nullptr);

// The last path component of `path`.
std::string basename_of(const std::string& path);

// A Word holding `word`'s characters from `from` on (offsets kept).
Word word_tail(const Word& word, std::size_t from);

} // namespace lg::audit::detail
