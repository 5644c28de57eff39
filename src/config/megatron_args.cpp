// Megatron-LM command lines: the JobSpec they describe, the command split for
// writing it again, and --moe-layer-freq (the flags: megatron_flags.cpp; the
// sections they fill: megatron_sections.cpp).
#include "config/megatron_args.hpp"
#include "config/megatron_flags.hpp"
#include "config/not_modelled.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>

namespace lg::config {

std::vector<int> parse_moe_layer_freq(const std::string& text, int num_layers)
{
  std::string compact;
  for (char c : text) {
    if (c != ' ' && c != '(' && c != ')') {
      compact += c;
    }
  }
  auto bad = [&]() {
    InputError error("--moe-layer-freq '{}' is neither an integer nor a list of 0/1", text);
    error.hint = "write --moe-layer-freq 1 or \"([0]*3+[1]*58)\"";
    return error;
  };
  if (!compact.empty() && compact.front() != '[') {
    int freq = 0;
    const auto [end, ec] = std::from_chars(compact.data(), compact.data() + compact.size(), freq);
    if (ec != std::errc() || end != compact.data() + compact.size() || freq <= 0) {
      throw bad();
    }
    std::vector<int> pattern;
    if (freq > 1) {
      for (int i = 0; i < num_layers; ++i) {
        pattern.push_back(i % freq == 0 ? 1 : 0);
      }
    }
    return pattern;
  }
  // Sum of terms: [a,b,c] or [a]*n.
  std::vector<int> pattern;
  for (const auto& term : split(compact, '+')) {
    const auto close = term.find(']');
    if (term.empty() || term.front() != '[' || close == std::string::npos) {
      throw bad();
    }
    std::vector<int> items;
    for (const auto& item : split(term.substr(1, close - 1), ',')) {
      if (item != "0" && item != "1") {
        throw bad();
      }
      items.push_back(item == "1" ? 1 : 0);
    }
    int repeat = 1;
    if (close + 1 < term.size()) {
      if (term[close + 1] != '*') {
        throw bad();
      }
      const std::string count = term.substr(close + 2);
      const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), repeat);
      if (ec != std::errc() || end != count.data() + count.size() || repeat < 0 || repeat > 100000) {
        throw bad();
      }
    }
    for (int i = 0; i < repeat; ++i) {
      pattern.insert(pattern.end(), items.begin(), items.end());
    }
  }
  return pattern;
}

namespace {

// The flag name of `word` ("--seq-length=4096" -> "seq-length").
std::string flag_name(const std::string& word)
{
  const auto eq = word.find('=');
  return word.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
}

} // namespace

MegatronCommand split_megatron_command(const std::vector<std::string>& argv)
{
  JobSpec scratch;
  detail::read_megatron_flags(detail::collect_flags(argv), scratch);
  std::set<std::string> keyed;
  for (const auto& [key, where] : scratch.locations) {
    const auto index = static_cast<std::size_t>(where.column);
    if (where.file == "command line" && index >= 1 && index <= argv.size() && detail::is_flag(argv[index - 1])) {
      keyed.insert(flag_name(argv[index - 1]));
    }
  }
  // The program ends at the training script (`torchrun --nproc-per-node 8
  // pretrain_gpt.py`), or else before the first flag.
  const auto script = std::find_if(argv.begin(), argv.end(), [](const std::string& w) { return w.ends_with(".py"); });
  MegatronCommand command;
  if (script != argv.end()) {
    command.program.assign(argv.begin(), script + 1);
  }
  for (auto it = script == argv.end() ? argv.begin() : script + 1; it != argv.end(); ++it) {
    const std::string& word = *it;
    if (detail::is_flag(word)) {
      const std::string name = flag_name(word);
      command.flags.push_back({name, {word}, keyed.count(name) != 0});
    } else if (command.flags.empty()) {
      command.program.push_back(word);
    } else {
      command.flags.back().words.push_back(word);
    }
  }
  return command;
}

JobSpec job_from_megatron_args(const std::vector<std::string>& argv, const MegatronArgsOptions& options)
{
  JobSpec spec;
  spec.name = "megatron-job";
  spec.source_file = "command line";
  spec.launch.framework = Framework::megatron_lm;
  spec.launch.template_name = "torchrun";
  spec.launch.command = argv;
  spec.cluster.gpu = options.gpu;
  spec.cluster.nodes = options.nodes;
  spec.cluster.gpus_per_node = options.gpus_per_node;
  detail::read_megatron_flags(detail::collect_flags(argv), spec);
  for (std::size_t i = 0; i < argv.size() && !detail::is_flag(argv[i]); ++i) {
    if (auto what = not_modelled_program(argv[i])) {
      spec.not_modelled.push_back(NotModelled{argv[i], *what, SourceLocation{"command line", 1, static_cast<int>(i + 1)}});
      break;
    }
  }
  if (spec.model.num_layers == 0 || spec.model.hidden_size == 0 || spec.model.num_attention_heads == 0) {
    InputError error("the command line lacks --num-layers, --hidden-size or --num-attention-heads");
    error.hint = "give the Megatron-LM model flags after `--`, e.g. -- python pretrain_gpt.py --num-layers 32 …";
    throw error;
  }
  if (spec.model.vocab_size == 0) {
    spec.model.vocab_size = 50257;
  }
  return spec;
}

} // namespace lg::config
