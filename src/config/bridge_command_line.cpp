#include "config/bridge_command_line.hpp"

#include "util/error.hpp"

#include <map>

namespace lg::config {

namespace {

// run_recipe.py convenience options -> the ConfigContainer field each sets.
const std::map<std::string, std::string>& convenience_flags()
{
  static const std::map<std::string, std::string> flags = {
    {"-ms", "train.train_iters"}, {"--max_steps", "train.train_iters"},
    {"-gb", "train.global_batch_size"}, {"--global_batch_size", "train.global_batch_size"},
    {"-mb", "train.micro_batch_size"}, {"--micro_batch_size", "train.micro_batch_size"},
    {"-sl", "dataset.seq_length"}, {"--seq_length", "dataset.seq_length"},
    {"-tp", "model.tensor_model_parallel_size"}, {"--tensor_model_parallel_size", "model.tensor_model_parallel_size"},
    {"-pp", "model.pipeline_model_parallel_size"}, {"--pipeline_model_parallel_size", "model.pipeline_model_parallel_size"},
    {"-cp", "model.context_parallel_size"}, {"--context_parallel_size", "model.context_parallel_size"},
    {"-vp", "model.virtual_pipeline_model_parallel_size"},
    {"--virtual_pipeline_model_parallel_size", "model.virtual_pipeline_model_parallel_size"},
    {"-ep", "model.expert_model_parallel_size"}, {"--expert_model_parallel_size", "model.expert_model_parallel_size"},
    {"-etp", "model.expert_tensor_parallel_size"}, {"--expert_tensor_parallel_size", "model.expert_tensor_parallel_size"},
  };
  return flags;
}

} // namespace

std::optional<BridgeCommandLine> read_bridge_command_line(const std::vector<std::string>& argv)
{
  BridgeCommandLine line;
  bool is_bridge = false;
  std::vector<BridgeSetting> flag_settings;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& word = argv[i];
    const SourceLocation where{"command line", 1, static_cast<int>(i + 1)};
    std::string flag = word;
    std::optional<std::string> inline_value;
    if (word.starts_with("-")) {
      if (const auto eq = word.find('='); eq != std::string::npos) {
        flag = word.substr(0, eq);
        inline_value = word.substr(eq + 1);
      }
    }
    auto value = [&]() -> std::string {
      if (inline_value) {
        return *inline_value;
      }
      if (i + 1 >= argv.size()) {
        InputError error("command line:1:{}: {} needs a value", i + 1, flag);
        error.hint = "write e.g. " + flag + " 8";
        throw error;
      }
      return argv[++i];
    };
    if (flag == "--recipe" || flag == "--model") {
      line.recipe = value();
      is_bridge = true;
    } else if (const auto it = convenience_flags().find(flag); it != convenience_flags().end()) {
      flag_settings.push_back(BridgeSetting{it->second, value(), where});
    } else if (!word.starts_with("-")) {
      if (auto setting = parse_bridge_override(word, where); setting && setting->key.find('.') != std::string::npos) {
        line.settings.push_back(std::move(*setting));
        is_bridge = true;
      } else if (setting && (setting->key == "mixed_precision" || setting->key == "peft")) {
        line.settings.push_back(std::move(*setting));
        is_bridge = true;
      }
    }
  }
  if (!is_bridge) {
    return std::nullopt;
  }
  // "When both forms set the same field, the trailing KEY=VALUE override takes
  // precedence" (run_recipe.py): convenience flags first.
  flag_settings.insert(flag_settings.end(), line.settings.begin(), line.settings.end());
  line.settings = std::move(flag_settings);
  return line;
}

} // namespace lg::config
