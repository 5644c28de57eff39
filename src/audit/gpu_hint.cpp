// gpu_from_script (audit.hpp): which GPU a script was written for, from what
// it says about the cluster: #SBATCH partition/constraint/gres/gpus names
// ("gpu:h100:8", "--constraint=gb200", "-p a100"), and GB200/GB300 NVL72
// hints (multi-node NVLink variables, NVLINK_DOMAIN_SIZE=72, 4 GPUs per node
// together with one of them). A memory size in the name picks the preset
// ("asus_a100x4_40gb": A100 40GB); one that no preset of the family has
// leaves it unknown. Nothing found: nullopt, and the caller says
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

bool name_char(char ch)
{
  return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_' || ch == '-' || ch == '.';
}

// A memory size written as a part of a name: "40gb", "80g" (parts split at
// '_', '-', '.'), or a bare number right after the GPU word ("a100-40").
// 0: none.
int memory_part(const std::string& part, bool bare_number)
{
  std::size_t digits = 0;
  while (digits < part.size() && std::isdigit(static_cast<unsigned char>(part[digits])) != 0) {
    ++digits;
  }
  const std::string unit = part.substr(digits);
  if (digits == 0 || digits > 4 || !(unit == "gb" || unit == "g" || (bare_number && unit.empty()))) {
    return 0;
  }
  return std::stoi(part.substr(0, digits));
}

// The memory size stated in the name holding t[at, at+length) ("asus_a100x4_40gb",
// "a100-40"), or in the word after it ("A100 40GB"). 0: none.
int memory_in_name(const std::string& t, std::size_t at, std::size_t length)
{
  std::size_t begin = at;
  while (begin > 0 && name_char(t[begin - 1])) {
    --begin;
  }
  std::size_t end = at + length;
  while (end < t.size() && name_char(t[end])) {
    ++end;
  }
  std::size_t next = end;
  while (next < t.size() && t[next] == ' ') {
    ++next;
  }
  std::size_t next_end = next;
  while (next_end < t.size() && name_char(t[next_end])) {
    ++next_end;
  }
  if (next > end && next_end > next) {
    if (const int gb = memory_part(t.substr(next, next_end - next), false); gb > 0) {
      return gb;
    }
  }
  for (std::size_t p = begin; p < end;) {
    std::size_t q = p;
    while (q < end && std::isalnum(static_cast<unsigned char>(t[q])) != 0) {
      ++q;
    }
    const bool after_word = p == at + length + 1;
    if (const int gb = memory_part(t.substr(p, q - p), after_word); gb > 0) {
      return gb;
    }
    p = q + 1;
  }
  return 0;
}

// Preset names by the words clusters use for them; longer names first so
// "gb200" is not read as "b200". A memory size in the name decides among a
// family's presets (A100 40GB or 80GB); one no preset has leaves the GPU
// unknown rather than guessed.
std::vector<std::string> gpu_words(const std::string& text)
{
  struct Family
  {
    std::string_view word;
    std::string_view preset;  // with no memory size in the name
    std::array<std::pair<int, std::string_view>, 2> by_memory;
  };
  static constexpr std::array<Family, 7> k_families = {{
    {"gb300", "gb300", {}}, {"gb200", "gb200", {}}, {"b300", "b300", {}}, {"b200", "b200", {}},
    {"h200", "h200-141gb", {{{141, "h200-141gb"}, {0, ""}}}}, {"h100", "h100-80gb", {{{80, "h100-80gb"}, {0, ""}}}},
    {"a100", "a100-80gb", {{{40, "a100-40gb"}, {80, "a100-80gb"}}}},
  }};
  const std::string t = lower(text);
  std::vector<std::string> out;
  const auto add = [&out](std::string_view preset) {
    if (std::find(out.begin(), out.end(), preset) == out.end()) {
      out.emplace_back(preset);
    }
  };
  for (const auto& family : k_families) {
    for (auto at = t.find(family.word); at != std::string::npos; at = t.find(family.word, at + 1)) {
      const bool alone = at == 0 || std::isalnum(static_cast<unsigned char>(t[at - 1])) == 0;
      if (!alone) {
        continue;
      }
      const int gb = memory_in_name(t, at, family.word.size());
      if (gb == 0) {
        add(family.preset);
        continue;
      }
      for (const auto& [memory, preset] : family.by_memory) {
        if (memory == gb) {
          add(preset);
        }
      }
    }
    // "gh200" (96 or 144 GB by model) is no preset; the caller says memory is not judged.
  }
  for (auto at = t.find("gh200"); at != std::string::npos; at = t.find("gh200", at + 1)) {
    if (at == 0 || std::isalnum(static_cast<unsigned char>(t[at - 1])) == 0) {
      add("gh200");
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
