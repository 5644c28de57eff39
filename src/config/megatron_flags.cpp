// The flags of a Megatron-LM command line (megatron_flags.hpp).
#include "config/megatron_flags.hpp"

namespace lg::config::detail {

bool is_flag(const std::string& word)
{
  return word.size() > 2 && word.starts_with("--");
}

FlagMap collect_flags(const std::vector<std::string>& argv)
{
  FlagMap flags;
  std::string current;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& word = argv[i];
    if (is_flag(word)) {
      std::string name = word.substr(2);
      std::string inline_value;
      if (const auto eq = name.find('='); eq != std::string::npos) {
        inline_value = name.substr(eq + 1);
        name.resize(eq);
      }
      auto& flag = flags[name];
      flag.values.clear();
      flag.position = static_cast<int>(i + 1);
      current = name;
      if (!inline_value.empty()) {
        flag.values.push_back(inline_value);
        current.clear();
      }
    } else if (!current.empty()) {
      flags[current].values.push_back(word);
    }
  }
  return flags;
}

}  // namespace lg::config::detail
