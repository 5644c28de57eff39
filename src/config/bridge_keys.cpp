// Megatron Bridge ConfigContainer settings -> JobSpec (bridge_keys.hpp): each
// setting through the key table, the pending joint fields, env_vars, the
// not-modelled list, or the known-field check. ConfigContainer: Field names and meanings:
// Megatron-Bridge src/megatron/bridge/training/config.py (ConfigContainer),
// training/mixed_precision.py (MixedPrecisionConfig and its named recipes),
// training/comm_overlap.py (CommOverlapConfig), peft/lora.py (LoRA);
// Megatron-LM megatron/core/transformer/transformer_config.py,
// model_parallel_config.py, optimizer/optimizer_config.py,
// distributed/distributed_data_parallel_config.py.
#include "config/bridge_keys.hpp"

#include "config/bridge_mapping.hpp"
#include "config/not_modelled.hpp"
#include "util/edit_distance.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace lg::config {

namespace bridge {

// Record `where` for `job_key` and for each enclosing section not yet located,
// so a rule asking for "training.recompute" finds the setting too.
void record(JobSpec& spec, const std::string& job_key, const SourceLocation& where)
{
  spec.locations[job_key] = where;
  for (auto dot = job_key.rfind('.'); dot != std::string::npos; dot = job_key.rfind('.', dot - 1)) {
    spec.locations.emplace(job_key.substr(0, dot), where);
    if (dot == 0) {
      break;
    }
  }
}

} // namespace bridge

namespace {

using bridge::Value;

bool valid_key(std::string_view key)
{
  if (key.empty() || key.front() == '.' || key.back() == '.') {
    return false;
  }
  return std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  });
}

std::vector<std::string> all_known_keys(const std::string& section)
{
  std::vector<std::string> keys;
  for (const auto& [key, entry] : bridge::key_table()) {
    if (key.starts_with(section + ".")) {
      keys.push_back(key.substr(section.size() + 1));
    }
  }
  for (const auto& known : bridge_known_sections()) {
    if (known.name == section) {
      keys.insert(keys.end(), known.fields.begin(), known.fields.end());
    }
  }
  return keys;
}

} // namespace

const std::vector<std::string>& bridge_unchecked_sections()
{
  static const std::vector<std::string> sections = {
    "rng", "rerun_state_machine", "validation", "scheduler", "logger", "tokenizer", "checkpoint", "dist",
    "ft", "straggler", "nvrx_straggler", "profiling", "tensor_inspect", "inprocess_restart",
    "optimizer_config_override_provider"};
  return sections;
}

std::optional<BridgeSetting> parse_bridge_override(std::string_view word, SourceLocation where)
{
  const auto eq = word.find('=');
  if (eq == std::string_view::npos) {
    return std::nullopt;
  }
  std::string_view key = word.substr(0, eq);
  while (key.starts_with("+")) {
    key.remove_prefix(1);
  }
  if (!valid_key(key) || !(key.front() >= 'a' && key.front() <= 'z')) {
    return std::nullopt;
  }
  return BridgeSetting{std::string(key), std::string(word.substr(eq + 1)), std::move(where)};
}

std::vector<BridgeOutcome> apply_bridge_settings(JobSpec& spec, const std::vector<BridgeSetting>& settings)
{
  std::vector<BridgeOutcome> out(settings.size());
  bridge::Pending pending;
  for (std::size_t i = 0; i < settings.size(); ++i) {
    const auto& setting = settings[i];
    auto& o = out[i];
    const std::string& key = setting.key;
    const Value value = bridge::parse_value(setting.value);
    const auto dot = key.find('.');
    const std::string section = key.substr(0, dot);
    const std::string field = dot == std::string::npos ? "" : key.substr(dot + 1);
    if (auto* slot = bridge::pending_slot(pending, key)) {
      *slot = std::make_pair(i, value);
      o.effect = BridgeEffect::applied;  // resolved below; may turn into an error
      continue;
    }
    if (const auto it = bridge::key_table().find(key); it != bridge::key_table().end()) {
      if (std::string error = it->second.set(spec, value); !error.empty()) {
        o.effect = BridgeEffect::error;
        o.message = fmt::format("{} {}", key, error);
        continue;
      }
      o.effect = BridgeEffect::applied;
      o.job_keys = it->second.job_keys;
      for (const auto& job_key : o.job_keys) {
        bridge::record(spec, job_key, setting.where);
      }
      continue;
    }
    if (section == "env_vars" && !field.empty()) {
      auto found = std::find_if(spec.env.begin(), spec.env.end(), [&](const auto& kv) { return kv.first == field; });
      if (found != spec.env.end()) {
        found->second = value.text;
      } else {
        spec.env.emplace_back(field, value.text);
      }
      o.effect = BridgeEffect::applied;
      o.job_keys = {"env." + field};
      bridge::record(spec, "env." + field, setting.where);
      continue;
    }
    if (const auto what = not_modelled_what(key); what && key.find('.') != std::string::npos) {
      o.effect = bridge::is_default_off(value) ? BridgeEffect::not_read : BridgeEffect::not_modelled;
      o.message = fmt::format("{} = {}: {}; launchguard's estimate does not include it", key, value.text, *what);
      if (o.effect == BridgeEffect::not_modelled) {
        note_not_modelled(spec, key, "= " + value.text, setting.where);
      }
      continue;
    }
    if (field.starts_with("_") || field.find("._") != std::string::npos) {
      continue;  // _target_, _partial_, _call_: OmegaConf instantiation keys
    }
    const auto& unchecked = bridge_unchecked_sections();
    if (std::find(unchecked.begin(), unchecked.end(), section) != unchecked.end()) {
      continue;
    }
    const auto& known = bridge_known_sections();
    const auto sec = std::find_if(known.begin(), known.end(), [&](const KnownSection& s) { return s.name == section; });
    if (sec == known.end()) {
      std::vector<std::string> names = {"env_vars", "mixed_precision", "peft"};
      for (const auto& s : known) {
        names.push_back(s.name);
      }
      names.insert(names.end(), unchecked.begin(), unchecked.end());
      o.effect = BridgeEffect::error;
      o.message = fmt::format("unknown ConfigContainer section '{}' in {}", section, key);
      if (auto near = nearest(section, names)) {
        o.hint = fmt::format("did you mean '{}'?", *near);
      } else {
        o.hint = "sections: model, train, optimizer, ddp, dataset, mixed_precision, comm_overlap, peft, env_vars, …";
      }
      continue;
    }
    // Only the first path component below the section is a dataclass field;
    // deeper keys (dataset.dataset_kwargs.x, comm_overlap.tp_comm_overlap_cfg.y) are free-form.
    const std::string head = field.substr(0, field.find('.'));
    const auto fields = all_known_keys(section);
    if (std::find(fields.begin(), fields.end(), head) != fields.end()) {
      continue;  // a real field that does not change memory, rules or environment
    }
    o.effect = BridgeEffect::error;
    o.message = fmt::format("unknown key {} (no field '{}' in the {} section of Megatron Bridge's ConfigContainer)", key,
                            head, section);
    if (auto near = nearest(head, fields)) {
      o.hint = fmt::format("did you mean '{}.{}'?", section, *near);
    }
  }
  bridge::resolve_pending(spec, pending, settings, out);
  return out;
}

void apply_bridge_settings_or_throw(JobSpec& spec, const std::vector<BridgeSetting>& settings)
{
  const auto outcomes = apply_bridge_settings(spec, settings);
  std::string text;
  std::string hint;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const auto& o = outcomes[i];
    const auto& where = settings[i].where;
    const std::string at = where.file.empty() ? "" : fmt::format("{}:{}:{}: ", where.file, where.line, where.column);
    if (o.effect == BridgeEffect::error) {
      if (text.empty()) {
        hint = o.hint;
      } else {
        text += "\n";
      }
      const bool first = text.empty();
      text += at + o.message;
      if (!first && !o.hint.empty()) {
        text += fmt::format(" ({})", o.hint);
      }
    }
  }
  if (!text.empty()) {
    InputError error("{}", text);
    error.hint = hint;
    throw error;
  }
}

} // namespace lg::config
