#include "config/bridge_yaml.hpp"

#include "util/error.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

namespace lg::config {

namespace fs = std::filesystem;

namespace {

constexpr int k_max_depth = 32;
constexpr std::size_t k_max_values = 100000;
constexpr std::uintmax_t k_max_bytes = 16 * 1024 * 1024;

class Flattener
{
public:
  explicit Flattener(std::string file)
    : m_file(std::move(file))
  {
  }

  SourceLocation where(const YAML::Node& node) const
  {
    const YAML::Mark mark = node.Mark();
    return SourceLocation{m_file, mark.line + 1, mark.column + 1};
  }

  void walk(const YAML::Node& node, const std::string& key, const SourceLocation& at, int depth)
  {
    if (depth > k_max_depth) {
      fail(at, fmt::format("{} is nested deeper than {} levels", key, k_max_depth));
    }
    if (node.IsMap()) {
      for (const auto& item : node) {
        if (!item.first.IsScalar()) {
          fail(where(item.first), fmt::format("a key under {} is not a plain name", key.empty() ? "the root" : key));
        }
        const std::string name = item.first.Scalar();
        walk(item.second, key.empty() ? name : key + "." + name, where(item.first), depth + 1);
      }
      return;
    }
    std::string value;
    if (node.IsNull()) {
      value = "null";
    } else if (node.IsScalar()) {
      value = node.Scalar();
      // A quoted "null" stays a string; OmegaConf writes None as null.
      if (node.Tag() == "!" && (value == "null" || value == "None" || value == "~")) {
        value = "'" + value + "'";
      }
    } else if (node.IsSequence()) {
      std::vector<std::string> items;
      bool scalars = true;
      for (const auto& item : node) {
        count();
        if (item.IsScalar()) {
          items.push_back(item.Scalar());
        } else if (item.IsNull()) {
          items.emplace_back("null");
        } else {
          scalars = false;
          break;
        }
      }
      value = scalars ? fmt::format("[{}]", fmt::join(items, ",")) : "<a list of mappings>";
    }
    if (key.empty()) {
      fail(at, "a Megatron Bridge configuration is a mapping (model:, train:, …), not a single value");
    }
    count();
    m_settings.push_back(BridgeSetting{key, value, at});
  }

  std::vector<BridgeSetting>& settings() { return m_settings; }

private:
  void count()
  {
    if (++m_values > k_max_values) {
      fail(SourceLocation{m_file, 1, 1}, fmt::format("more than {} values (aliases expanded)", k_max_values));
    }
  }

  [[noreturn]] void fail(const SourceLocation& at, const std::string& message) const
  {
    InputError error("{}:{}:{}: {}", at.file, at.line, at.column, message);
    error.hint = "give the run_config.yaml a Megatron Bridge checkpoint holds, or a mapping of ConfigContainer sections";
    throw error;
  }

  std::string m_file;
  std::vector<BridgeSetting> m_settings;
  std::size_t m_values = 0;
};

} // namespace

std::vector<BridgeSetting> read_bridge_yaml_text(std::string_view text, const std::string& display_name)
{
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    InputError error("{}:{}:{}: invalid YAML: {}", display_name, e.mark.line + 1, e.mark.column + 1, e.msg);
    error.hint = "check the indentation and the ':' on that line";
    throw error;
  }
  Flattener flattener(display_name);
  if (root.IsNull()) {
    return {};
  }
  if (!root.IsMap()) {
    InputError error("{}:1:1: a Megatron Bridge configuration is a mapping (model:, train:, …)", display_name);
    error.hint = "give the run_config.yaml a Megatron Bridge checkpoint holds";
    throw error;
  }
  try {
    flattener.walk(root, "", SourceLocation{display_name, 1, 1}, 0);
  } catch (const YAML::Exception& e) {
    InputError error("{}:{}:{}: invalid YAML: {}", display_name, e.mark.line + 1, e.mark.column + 1, e.msg);
    throw error;
  }
  return std::move(flattener.settings());
}

std::vector<BridgeSetting> read_bridge_yaml(const fs::path& given)
{
  std::error_code ec;
  // A checkpoint directory holds run_config.yaml (Megatron-Bridge auto_bridge.py).
  const fs::path path = fs::is_directory(given, ec) ? given / "run_config.yaml" : given;
  if (!fs::exists(path, ec)) {
    InputError error("cannot read Megatron Bridge configuration '{}': no such file", path.string());
    error.hint = "a Bridge run writes its configuration as run_config.yaml into each checkpoint directory (iter_0000100/run_config.yaml)";
    throw error;
  }
  if (!fs::is_regular_file(path, ec)) {
    InputError error("cannot read Megatron Bridge configuration '{}': not a regular file", path.string());
    throw error;
  }
  if (fs::file_size(path, ec) > k_max_bytes) {
    InputError error("Megatron Bridge configuration '{}' is larger than {} MiB", path.string(), k_max_bytes / (1024 * 1024));
    throw error;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    InputError error("cannot read Megatron Bridge configuration '{}': permission denied", path.string());
    throw error;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return read_bridge_yaml_text(buffer.str(), path.string());
}

} // namespace lg::config
