// gpu_from_script (audit.hpp): which GPU a script was written for, from what
// it says about the cluster: #SBATCH partition/constraint/gres/gpus names
// ("gpu:h100:8", "--constraint=gb200", "-p a100"), and GB200/GB300 NVL72
// hints (multi-node NVLink variables, NVLINK_DOMAIN_SIZE=72, 4 GPUs per node
// together with one of them). The families come from the preset names; a
// memory size in the name picks the preset ("asus_a100x4_40gb": A100 40GB),
// and one no preset of the family has leaves it unknown. A family name with
// no size where the presets have several ("gpu-a100"), GH200 (96 or 144 GB
// by model) and AMD GPUs (LUMI-G partitions, ROCm variables) come back with
// `no_preset` saying why, and the caller judges no memory. Nothing found:
// nullopt, and the caller says which GPU it assumed.
#include "audit/audit.hpp"

#include "audit/findings.hpp"
#include "audit/job_from_script.hpp"
#include "audit/script_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
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

// A preset name read as the GPU word clusters use and the memory size it
// states: "a100-40gb" -> ("a100", 40), "gb200" -> ("gb200", 0).
std::pair<std::string, int> preset_family(const std::string& preset)
{
  const auto dash = preset.find('-');
  if (dash == std::string::npos) {
    return {preset, 0};
  }
  return {preset.substr(0, dash), memory_part(preset.substr(dash + 1), false)};
}

// A match of a GPU word: a preset name, and `no_preset` saying why its
// memory is not known ("a100": A100 40GB or 80GB, the name says neither; the
// preset is then one of the family, for its generation only).
struct WordMatch
{
  std::string preset;
  std::string no_preset;
  std::string name = {};  // GpuHint::name
  bool operator==(const WordMatch&) const = default;
};

// The GPU families the presets name, by the words clusters use for them
// ("gpu:h100:8", "a100_80g"). A memory size in the name decides among a
// family's presets (A100 40GB or 80GB); one no preset has leaves the GPU
// unknown rather than guessed, and so does no size where the family has
// several ("gpu-a100": TACC Lonestar6's A100s have 40 GB, others 80).
std::vector<WordMatch> gpu_words(const std::string& text, const std::vector<std::string>& presets)
{
  const std::string t = lower(text);
  std::vector<WordMatch> out;
  const auto add = [&out](WordMatch match) {
    if (std::find(out.begin(), out.end(), match) == out.end()) {
      out.push_back(std::move(match));
    }
  };
  std::vector<std::string> words;
  for (const auto& preset : presets) {
    if (const auto word = preset_family(preset).first; std::find(words.begin(), words.end(), word) == words.end()) {
      words.push_back(word);
    }
  }
  words.emplace_back("gh200");  // no preset: its HBM is 96 or 144 GB by model
  words.emplace_back("h800");   // the H100 for export: 80 GB, Hopper; NVLink 400 GB/s
  for (const auto& word : words) {
    for (auto at = t.find(word); at != std::string::npos; at = t.find(word, at + 1)) {
      if (at != 0 && std::isalnum(static_cast<unsigned char>(t[at - 1])) != 0) {
        continue;  // "gb200" is not "b200"
      }
      const int gb = memory_in_name(t, at, word.size());
      std::vector<std::string> sizes;
      for (const auto& preset : presets) {
        const auto [family, memory] = preset_family(preset);
        if (family == word && (gb == 0 || memory == gb)) {
          sizes.push_back(preset);
        }
      }
      if (word == "h800") {
        // NVIDIA's H800 (the H100 SXM made for export: the same Hopper
        // GPU and 80 GB of HBM3, NVLink cut to 400 GB/s): the H100 80GB
        // preset's memory and generation hold.
        if (std::find(presets.begin(), presets.end(), "h100-80gb") != presets.end()) {
          add({"h100-80gb", "", "h800"});
        }
      } else if (word == "gh200") {
        // Its GPU is a Hopper H100 (compute capability 9.0, NVIDIA GH200
        // Grace Hopper Superchip datasheet): the H100 preset's generation
        // holds, its 80 GB does not.
        add({"h100-80gb", "GH200's HBM is 96 or 144 GB by model", "gh200"});
      } else if (sizes.size() == 1) {
        add({sizes.front(), ""});
      } else if (sizes.size() > 1) {
        std::string list;
        for (const auto& preset : sizes) {
          list += (list.empty() ? "" : " and ") + preset;
        }
        // The family is known (its generation holds), its memory size not.
        add({sizes.front(), "the name states no memory size, and " + word + " has several (" + list + ")"});
      }
    }
  }
  return out;
}

std::optional<WordMatch> gpu_word(const std::string& text, const std::vector<std::string>& presets)
{
  auto all = gpu_words(text, presets);
  return all.empty() ? std::nullopt : std::optional<WordMatch>(std::move(all.front()));
}

// AMD Instinct GPUs (LUMI-G's MI250X, MI300A/X, MI210, MI100), which no
// preset models: "mi250" in a name, LUMI-G's partitions (standard-g, small-g,
// dev-g: docs.lumi-supercomputer.eu, "Slurm partitions"), or the ROCm
// runtime's own variables (ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, MIOPEN_*;
// ROCm documentation) set in the script. Empty: none.
std::string amd_evidence(const ScriptModel& model)
{
  for (const char* name : {"gres", "gpus", "gpus-per-node", "constraint", "partition"}) {
    const Directive* d = model.directive(name);
    if (d == nullptr || !d->has_value) {
      continue;
    }
    const std::string value = lower(d->value);
    const bool lumi_g = value == "standard-g" || value == "small-g" || value == "dev-g";
    bool instinct = false;
    for (auto at = value.find("mi"); at != std::string::npos; at = value.find("mi", at + 1)) {
      const bool alone = at == 0 || std::isalnum(static_cast<unsigned char>(value[at - 1])) == 0;
      instinct = instinct || (alone && at + 3 < value.size() && std::isdigit(static_cast<unsigned char>(value[at + 2])) != 0);
    }
    if (lumi_g || instinct) {
      return "#SBATCH --" + std::string(name) + "=" + d->value;
    }
  }
  for (const auto& a : model.assignments) {
    if (a.name == "ROCR_VISIBLE_DEVICES" || a.name == "HIP_VISIBLE_DEVICES" || a.name.starts_with("MIOPEN_")) {
      return a.name + "= (a ROCm runtime variable)";
    }
  }
  // A ROCm container: `apptainer exec --rocm` (Apptainer's GPU support for
  // AMD, user guide "GPU Support"), an image built on ROCm (`rocm/pytorch`,
  // `pytorch2.4.1_rocm6.1.sif`), or `module load rocm`.
  auto rocm_image = [](const std::string& text) {
    const std::string t = lower(text);
    return t.find("rocm/") != std::string::npos || (t.find("rocm") != std::string::npos && t.ends_with(".sif"));
  };
  for (const auto& a : model.assignments) {
    for (const auto& w : a.value) {
      if (rocm_image(w.text())) {
        return a.name + "=" + w.text() + " (a ROCm image)";
      }
    }
  }
  for (const auto& command : model.commands) {
    for (std::size_t i = 0; i < command.words.size(); ++i) {
      const std::string& t = command.words[i].text();
      const bool module_rocm = i >= 2 && command.words[0].text() == "module" && command.words[1].text() == "load"
                               && lower(t).starts_with("rocm");
      if (t == "--rocm" || module_rocm || rocm_image(t)) {
        return "`" + t + "` (ROCm)";
      }
    }
  }
  return "";
}

// Huawei Ascend NPUs, which no preset models: the CANN runtime's variables
// (ASCEND_RT_VISIBLE_DEVICES, ASCEND_*: CANN documentation, "Environment
// Variables") or its collective library's (HCCL_*, the NCCL of Ascend) set in
// the script. Empty: none.
std::string ascend_evidence(const ScriptModel& model)
{
  for (const auto& a : model.assignments) {
    if (a.name.starts_with("ASCEND_") || a.name.starts_with("HCCL_")) {
      return a.name + "= (a variable of Huawei's CANN runtime)";
    }
  }
  return "";
}

} // namespace

std::optional<GpuHint> gpu_from_script(const std::string& text, const std::vector<std::string>& presets)
{
  ScriptModel model = read_script(text);
  // The GPU the job runs on is named where sbatch reads it: a late #SBATCH
  // line the rest of the audit reads as meant (read_late_directives_as_meant)
  // names a partition the job does not get, and a memory verdict against it
  // would be judged on another GPU (round 18's Megatron job).
  for (auto& d : model.directives) {
    d.ignored = d.ignored || d.late;
  }
  // Each component of a heterogeneous job names its own nodes (a CPU
  // component next to a GPU one): the GPU is the one the components name,
  // and when two name different GPUs this option does not decide.
  for (const char* name : {"gres", "gpus", "gpus-per-node", "constraint", "partition", "gpus-per-task"}) {
    std::optional<GpuHint> hint;
    bool several = false;
    for (int component = 0; component < model.components; ++component) {
      const Directive* d = model.directive(name, component);
      if (d == nullptr || !d->has_value) {
        continue;
      }
      if (auto match = gpu_word(d->value, presets)) {
        several = several || (hint && (hint->preset != match->preset || hint->name != match->name));
        if (!hint) {
          hint =
            GpuHint{match->preset, "#SBATCH --" + std::string(name) + "=" + d->value, match->no_preset, match->name};
        }
      }
    }
    if (hint && !several) {
      return hint;
    }
  }
  if (const std::string amd = amd_evidence(model); !amd.empty()) {
    return GpuHint{"amd", amd, "an AMD GPU, which the memory model does not know (it models NVIDIA presets only)"};
  }
  if (const std::string npu = ascend_evidence(model); !npu.empty()) {
    return GpuHint{"ascend", npu,
                   "an Ascend NPU, which the memory model does not know (it models NVIDIA presets only)"};
  }
  for (const auto& a : model.assignments) {
    const std::string value = a.value.empty() ? "" : a.value.front().text();
    const bool mnnvl = a.name.find("MNNVL") != std::string::npos && value != "0";
    if (mnnvl || (a.name == "NVLINK_DOMAIN_SIZE" && value == "72")) {
      return GpuHint{"gb200", a.name + "=" + value + " (multi-node NVLink: a GB200 NVL72 system)", ""};
    }
  }
  // `--gres=gpu:p6000:2`: a GPU type no preset matches is still the
  // script's GPU (Slurm gres.conf names the type); say it, never assume an
  // H100 in its place. Types that are counts or placeholders say nothing.
  // The same for `--gpus-per-node=a40:4` (and --gpus, --gpus-per-task):
  // "[type:]number" (sbatch(1)).
  for (const char* name : {"gres", "gpus-per-node", "gpus", "gpus-per-task"}) {
    const Directive* d = model.directive(name);
    if (d == nullptr || !d->has_value) {
      continue;
    }
    const std::string value = lower(d->value);
    const bool gres = std::string_view(name) == "gres";
    if (gres && !value.starts_with("gpu:")) {
      continue;
    }
    const std::size_t from = gres ? 4 : 0;
    const auto colon = value.find(':', from);
    const std::string type = value.substr(from, colon == std::string::npos ? std::string::npos : colon - from);
    const bool word = !type.empty() && std::isalpha(static_cast<unsigned char>(type.front())) != 0
                      && type.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-.") == std::string::npos;
    if (word && colon != std::string::npos && !detail::placeholder(d->value, false)) {
      return GpuHint{type, fmt::format("#SBATCH --{}={}", name, d->value), ""};
    }
  }
  // A GPU no preset models, named in a partition, constraint or QoS
  // (`--partition=gpu_4090`, `--constraint=l40s`): the script's GPU, said
  // by name, never an assumed H100 in its place.
  static constexpr std::array<std::string_view, 16> k_other_gpus = {
    "rtx6000", "a6000", "a5000", "a4000", "l40s", "l40", "a100", "a40", "a30", "a10", "4090", "3090", "v100",
    "p100", "t4", "l4"};
  for (const char* name : {"partition", "constraint", "qos", "gres"}) {
    const Directive* d = model.directive(name);
    if (d == nullptr || !d->has_value) {
      continue;
    }
    const std::string value = lower(d->value);
    for (std::string_view gpu : k_other_gpus) {
      for (auto at = value.find(gpu); at != std::string::npos; at = value.find(gpu, at + 1)) {
        const auto end = at + gpu.size();
        const bool starts = at == 0 || std::isalnum(static_cast<unsigned char>(value[at - 1])) == 0;
        const bool ends = end == value.size() || std::isalnum(static_cast<unsigned char>(value[end])) == 0;
        if (starts && ends && gpu != "a100") {  // an A100 of no stated size is the family match above
          return GpuHint{std::string(gpu), fmt::format("#SBATCH --{}={}", name, d->value), ""};
        }
      }
    }
  }
  // The text (comments, echo lines) names exactly one GPU family: "The
  // default targets 8 GB200 nodes", "8 B300 GPUs per node".
  // An #SBATCH line below the first command is not read by sbatch (sbatch(1):
  // processing stops at the first non-comment line): the partition or GPU it
  // names is not the job's, so its words say nothing (round 18's Megatron
  // job, whose whole #SBATCH block, `--partition=h100` too, follows `DIR=`pwd``).
  std::set<int> ignored_lines;
  for (const auto& d : model.directives) {
    if (d.late) {
      ignored_lines.insert(model.line_of(d.offset));
    }
  }
  std::optional<WordMatch> only;
  int line = 0;
  for (std::size_t l = 0; l < model.line_starts.size(); ++l) {
    if (ignored_lines.count(static_cast<int>(l) + 1) != 0) {
      continue;
    }
    const auto begin = static_cast<std::size_t>(model.line_starts[l]);
    const auto end = l + 1 < model.line_starts.size() ? static_cast<std::size_t>(model.line_starts[l + 1]) : text.size();
    for (auto& match : gpu_words(text.substr(begin, end - begin), presets)) {
      if (only && (only->preset != match.preset || only->name != match.name)) {
        return std::nullopt;  // several GPUs named: do not guess
      }
      if (!only) {
        line = static_cast<int>(l) + 1;
      }
      only = std::move(match);
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
  if (only && only->preset.starts_with("gb") && per_node != 4) {
    return std::nullopt;
  }
  if (only) {
    return GpuHint{only->preset, "the script names it on line " + std::to_string(line), only->no_preset, only->name};
  }
  return std::nullopt;
}

} // namespace lg::audit
