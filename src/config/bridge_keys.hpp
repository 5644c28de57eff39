// Megatron Bridge ConfigContainer settings -> JobSpec: the one mapping that
// --bridge-override, --bridge-config YAML, the `key=value` words of a Bridge
// recipe command line (`run_recipe.py --recipe … model.tensor_model_parallel_size=8`)
// and `audit` all go through. Pure: no I/O, never throws.
#pragma once

#include "config/job_spec.hpp"
#include "util/diagnostic.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lg::config {

// One ConfigContainer setting: a dotted key ("model.tensor_model_parallel_size")
// and its value as written, in Hydra/OmegaConf override syntax (4, true, null,
// "text", [a, b]); a YAML file gives the same text per scalar/sequence.
struct BridgeSetting
{
  std::string key;
  std::string value;
  SourceLocation where;
};

enum class BridgeEffect {
  applied,       // changed the JobSpec; job_keys say where
  not_modelled,  // changes memory, but the estimator does not model it (message says what; noted in spec.not_modelled)
  not_read,      // a real ConfigContainer field that does not change what preflight judges
  error,         // unknown key or bad value (message, hint)
};

struct BridgeOutcome
{
  BridgeEffect effect = BridgeEffect::not_read;
  std::vector<std::string> job_keys;  // JobSpec keys written ("parallelism.tp")
  std::string message;                // error / not_modelled text, without the location
  std::string hint;
};

// Split a `key=value` word. Hydra's `+key=value` and `++key=value` are accepted;
// returns nullopt for a word that is not an override (no '=', or a key that is
// not dotted lower-case identifiers).
std::optional<BridgeSetting> parse_bridge_override(std::string_view word, SourceLocation where = {});

// Apply `settings` to `spec` in order (a later setting of the same field wins)
// and return one outcome per setting. Settings that Megatron resolves together
// (fp8 + fp8_recipe, activation_func + gated_linear_unit, cpu_offloading +
// cpu_offloading_num_layers) are resolved after all are read, so their order
// does not matter. Every applied key's location is recorded in spec.locations.
std::vector<BridgeOutcome> apply_bridge_settings(JobSpec& spec, const std::vector<BridgeSetting>& settings);

// apply_bridge_settings for input readers: throws InputError listing every
// error ("cfg.yaml:12:3: unknown key model.tensor_paralel_size (did you mean
// …)"). A not-modelled setting is in spec.not_modelled (config/not_modelled.hpp),
// so the estimate's verdict is `unknown` and says why.
void apply_bridge_settings_or_throw(JobSpec& spec, const std::vector<BridgeSetting>& settings);

// The settings that give `spec`'s preflight-relevant fields, in the ConfigContainer's
// own keys (used by `convert --to bridge-overrides`). Inverse of apply_bridge_settings
// for every key it maps.
std::vector<BridgeSetting> bridge_settings_from_job(const JobSpec& spec);

// Field names of every ConfigContainer section launchguard checks keys in
// (generated from upstream dataclasses: bridge_known_keys.cpp).
struct KnownSection
{
  std::string name;
  std::vector<std::string> fields;
};
const std::vector<KnownSection>& bridge_known_sections();

// Sections whose keys are not checked at all (logger, checkpoint, …): real,
// and nothing in them changes memory, rules or environment.
const std::vector<std::string>& bridge_unchecked_sections();

} // namespace lg::config
