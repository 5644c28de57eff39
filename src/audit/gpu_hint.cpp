// gpu_from_script (audit.hpp): which GPU a script was written for, from what
// it says about the cluster: #SBATCH partition/constraint/gres/gpus names
// ("gpu:h100:8", "--constraint=gb200", "-p a100"), and GB200/GB300 NVL72
// hints (multi-node NVLink variables, NVLINK_DOMAIN_SIZE=72, 4 GPUs per node
// together with one of them). Nothing found: nullopt, and the caller says
// which GPU it assumed. "gh200" is no preset: its HBM is 96 or 144 GB by
// model, and the caller says memory is not judged.
#include "audit/audit.hpp"

#include "audit/job_from_script.hpp"
#include "audit/script_reader.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>
#include <vector>

namespace lg::audit {

namespace {

std::string lower(std::string text)
{
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// Preset names by the words clusters use for them; longer names first so
// "gb200" is not read as "b200".
std::vector<std::string> gpu_words(const std::string& text)
{
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 11> k_words = {{
    {"gb300", "gb300"}, {"gb200", "gb200"}, {"b300", "b300"}, {"b200", "b200"}, {"h200", "h200-141gb"},
    {"h100", "h100-80gb"}, {"a100-40", "a100-40gb"}, {"a100_40", "a100-40gb"}, {"a100-80", "a100-80gb"},
    {"a100", "a100-80gb"}, {"gh200", "gh200"},
  }};
  const std::string t = lower(text);
  std::vector<std::string> out;
  for (const auto& [word, preset] : k_words) {
    for (auto at = t.find(word); at != std::string::npos; at = t.find(word, at + 1)) {
      const bool alone = at == 0 || std::isalnum(static_cast<unsigned char>(t[at - 1])) == 0;
      if (alone && std::find(out.begin(), out.end(), preset) == out.end()) {
        out.emplace_back(preset);
      }
    }
  }
  return out;
}

std::optional<std::string> gpu_word(const std::string& text)
{
  const auto all = gpu_words(text);
  return all.empty() ? std::nullopt : std::optional<std::string>(all.front());
}

} // namespace

std::optional<GpuHint> gpu_from_script(const std::string& text)
{
  const ScriptModel model = read_script(text);
  for (const char* name : {"gres", "gpus", "gpus-per-node", "constraint", "partition", "gpus-per-task"}) {
    const Directive* d = model.directive(name);
    if (d == nullptr || !d->has_value) {
      continue;
    }
    if (auto preset = gpu_word(d->value)) {
      return GpuHint{*preset, "#SBATCH --" + std::string(name) + "=" + d->value};
    }
  }
  for (const auto& a : model.assignments) {
    const std::string value = a.value.empty() ? "" : a.value.front().text();
    const bool mnnvl = a.name.find("MNNVL") != std::string::npos && value != "0";
    if (mnnvl || (a.name == "NVLINK_DOMAIN_SIZE" && value == "72")) {
      return GpuHint{"gb200", a.name + "=" + value + " (multi-node NVLink: a GB200 NVL72 system)"};
    }
  }
  // The text (comments, echo lines) names exactly one GPU family: "The
  // default targets 8 GB200 nodes", "8 B300 GPUs per node".
  std::optional<std::string> only;
  int line = 0;
  for (std::size_t l = 0; l < model.line_starts.size(); ++l) {
    const auto begin = static_cast<std::size_t>(model.line_starts[l]);
    const auto end = l + 1 < model.line_starts.size() ? static_cast<std::size_t>(model.line_starts[l + 1]) : text.size();
    for (const auto& preset : gpu_words(text.substr(begin, end - begin))) {
      if (only && *only != preset) {
        return std::nullopt;  // several GPUs named: do not guess
      }
      if (!only) {
        line = static_cast<int>(l) + 1;
      }
      only = preset;
    }
  }
  // GB200/GB300 nodes have 4 GPUs: a mention next to 8 per node is a comment
  // about another setup ("change to 4 for GB200").
  int per_node = 0;
  for (const char* name : {"gpus-per-node", "gres", "ntasks-per-node"}) {
    const Directive* d = model.directive(name);
    if (d != nullptr && per_node == 0) {
      per_node = gpu_count(d->value);
    }
  }
  if (only && only->starts_with("gb") && per_node != 4) {
    return std::nullopt;
  }
  if (only) {
    return GpuHint{*only, "the script names it on line " + std::to_string(line)};
  }
  return std::nullopt;
}

} // namespace lg::audit
