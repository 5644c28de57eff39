// Internal to src/audit: the option grammar of each launcher and wrapper.
#pragma once

#include <set>
#include <string>

namespace lg::audit::detail {

struct OptionGrammar
{
  std::set<std::string> flags;       // long options without a value ('-' spelling)
  std::string short_flags;           // short options without a value
  std::set<std::string> two_values;  // options followed by two words (mpirun --mca)
  bool single_dash_long = false;     // mpirun: -np 8, -x NAME
  bool flags_by_default = false;     // options take a value only with '='
};

const OptionGrammar& srun_grammar();
const OptionGrammar& mpirun_grammar();
const OptionGrammar& torchrun_grammar();
const OptionGrammar& python_grammar();
const OptionGrammar& uv_grammar();
const OptionGrammar& deepspeed_grammar();
const OptionGrammar& numactl_grammar();
const OptionGrammar& generic_grammar();  // every option without '=' is a flag
const OptionGrammar& apptainer_grammar();  // apptainer/singularity exec|run options before the image
const OptionGrammar& docker_grammar();     // docker/podman run options before the image

// True for words that name a program a launcher runs (python, torchrun, srun,
// bash, *.py, *.sh, …): never taken as an option's value.
bool looks_like_program(const std::string& word);

// Normalise an option name: '_' -> '-'.
std::string normalise_option(std::string name);

} // namespace lg::audit::detail
