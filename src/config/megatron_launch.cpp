#include "config/megatron_launch.hpp"

#include "config/job_writer.hpp"
#include "config/megatron_args.hpp"

#include <iterator>
#include <set>

namespace lg::config {

namespace {

// Megatron-LM's GPT training entry point (pretrain_gpt.py at its root).
const char* const k_default_megatron_program[] = {"python", "pretrain_gpt.py"};

} // namespace

std::vector<std::string> megatron_launch_command(const JobSpec& spec)
{
  const MegatronCommand command = split_megatron_command(spec.launch.command);
  std::vector<std::string> words = command.program;
  if (words.empty()) {
    words.assign(std::begin(k_default_megatron_program), std::end(k_default_megatron_program));
  }
  std::vector<std::string> not_carried;  // `convert` reports these; the script simply lacks them
  const std::vector<std::string> job_flags = job_to_megatron_args(spec, not_carried);
  std::set<std::string> written;
  for (const auto& word : job_flags) {
    if (word.starts_with("--")) {
      written.insert(word.substr(2));
    }
  }
  words.insert(words.end(), job_flags.begin(), job_flags.end());
  for (const auto& flag : command.flags) {
    if (!flag.sets_job_key && written.count(flag.name) == 0) {
      words.insert(words.end(), flag.words.begin(), flag.words.end());
    }
  }
  return words;
}

} // namespace lg::config
