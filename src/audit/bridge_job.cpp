// read_bridge (megatron_words.hpp): a Megatron Bridge launch line
// (`python scripts/training/run_recipe.py --recipe NAME
// model.tensor_model_parallel_size=4 train.micro_batch_size=1 …`, Hydra-style
// key=value words parsed by Megatron-Bridge's
// megatron/bridge/training/utils/omegaconf_utils.py) read into the JobSpec
// through config::apply_bridge_settings, the reading `check` uses. The recipe
// sets what the words do not: those keys are unknown, never launchguard's
// defaults.
#include "audit/megatron_words.hpp"

#include "config/bridge_keys.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <string_view>

namespace lg::audit {

namespace {

// ConfigContainer sections whose words make a launch line a Bridge one.
bool bridge_job_section(std::string_view key)
{
  const std::string_view section = key.substr(0, key.find('.'));
  if (section == "mixed_precision" || section == "peft" || section == "env_vars") {
    return true;
  }
  if (key.find('.') == std::string_view::npos) {
    return false;
  }
  const auto& known = config::bridge_known_sections();
  const auto& unchecked = config::bridge_unchecked_sections();
  return std::any_of(known.begin(), known.end(), [&](const config::KnownSection& s) { return s.name == section; })
         || std::find(unchecked.begin(), unchecked.end(), section) != unchecked.end();
}

std::optional<config::BridgeSetting> bridge_word(const Word& w)
{
  auto setting = config::parse_bridge_override(w.text());
  if (!setting || !bridge_job_section(setting->key)) {
    return std::nullopt;
  }
  return setting;
}

// The JobSpec keys a Bridge key writes, found by applying it to a scratch job
// with a value of each usual shape.
std::vector<std::string> bridge_job_keys(const std::string& key)
{
  for (const char* value : {"2", "true", "[]", "x"}) {
    config::JobSpec scratch;
    const auto outcome = config::apply_bridge_settings(scratch, {config::BridgeSetting{key, value, {}}});
    if (outcome.front().effect == config::BridgeEffect::applied) {
      return outcome.front().job_keys;
    }
  }
  return {};
}

// Stand-ins for the model dimensions a recipe sets (as read_megatron's): the
// keys are listed unknown, so no rule reads them.
void fill_model_from_recipe(ScriptJob& job)
{
  auto& m = job.spec.model;
  const std::pair<int*, const char*> dims[] = {
    {&m.num_layers, "model.num_layers"}, {&m.hidden_size, "model.hidden_size"}, {&m.num_attention_heads, "model.num_attention_heads"}};
  const int fillers[] = {5040, 61440, 960};
  job.model_known = true;
  for (std::size_t i = 0; i < std::size(dims); ++i) {
    if (job.spec.locations.count(dims[i].second) == 0) {
      *dims[i].first = fillers[i];
      job.unknown.insert(dims[i].second);
      job.model_known = false;
    }
  }
  if (m.ffn_hidden_size == 0) {
    m.ffn_hidden_size = 4 * m.hidden_size;
  }
  if (m.vocab_size == 0) {
    m.vocab_size = 50257;
  }
}

} // namespace

bool looks_like_bridge_overrides(const std::vector<Word>& args)
{
  // A field of a section preflight reads (model.tensor_model_parallel_size,
  // train.global_batch_size, …): logger. or checkpoint. alone are words many
  // programs take, and a Hydra config of another program has a `model.` of
  // its own (round 25's Lightning job: `model.optimizer.lr=6e-4`), so the
  // field must be one of the ConfigContainer's (bridge_known_keys.cpp).
  const auto& unchecked = config::bridge_unchecked_sections();
  const auto& known = config::bridge_known_sections();
  return std::any_of(args.begin(), args.end(), [&](const Word& w) {
    const auto setting = bridge_word(w);
    if (!setting) {
      return false;
    }
    const std::string& key = setting->key;
    const auto dot = key.find('.');
    const std::string section = key.substr(0, dot);
    if (std::find(unchecked.begin(), unchecked.end(), section) != unchecked.end() || dot == std::string::npos) {
      return false;
    }
    const std::string field = key.substr(dot + 1, key.find('.', dot + 1) - dot - 1);
    return std::any_of(known.begin(), known.end(), [&](const config::KnownSection& k) {
      return k.name == section && std::find(k.fields.begin(), k.fields.end(), field) != k.fields.end();
    });
  });
}

void read_bridge(const ScriptModel& model, const std::string& path, ScriptJob& job)
{
  std::vector<config::BridgeSetting> settings;
  for (const auto& w : job.launch->args) {
    auto setting = bridge_word(w);
    if (!setting) {
      job.args_opaque = job.args_opaque || (!w.known && w.opaque);
      continue;
    }
    // An unknown value (`checkpoint.load=$(dirname "$X")`) is one setting the
    // script's own key names, not words that may hold any override.
    if (!w.known) {
      for (const auto& key : bridge_job_keys(setting->key)) {
        job.unknown.insert(key);
      }
      continue;
    }
    setting->where = script_location(model, path, w.offset);
    settings.push_back(std::move(*setting));
  }
  config::JobSpec spec;
  spec.cluster = job.spec.cluster;
  spec.launch.framework = config::Framework::megatron_bridge;
  spec.launch.command = {job.launch->program->text()};
  const auto outcomes = config::apply_bridge_settings(spec, settings);
  // Only what a word set is known: the sections' locations that
  // apply_bridge_settings records for its keys would place a rule about a
  // key the recipe sets on some other word.
  std::map<std::string, SourceLocation> locations;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].effect == config::BridgeEffect::error) {
      continue;  // a key this launchguard does not know: not judged here (check says so on the job)
    }
    for (const auto& key : outcomes[i].job_keys) {
      locations[key] = settings[i].where;
    }
  }
  for (const auto& [key, where] : locations) {
    job.unknown.erase(key);
  }
  job.spec = std::move(spec);
  job.spec.locations = locations;
  fill_model_from_recipe(job);
  job.megatron = true;
  job.bridge = true;
  read_world(job);
  // The CUDA_DEVICE_MAX_CONNECTIONS rule reads Megatron FSDP and the MoE
  // A2A overlap: with every override in sight, take the ConfigContainer
  // defaults (both off: DistributedDataParallelConfig.use_megatron_fsdp,
  // TransformerConfig.overlap_moe_expert_parallel_comm) and say so.
  if (!job.args_opaque) {
    for (const auto& [key, words] : {std::pair{"training.fsdp", "Megatron FSDP off (ddp.use_megatron_fsdp)"},
                                     std::pair{"training.overlap_moe_expert_parallel_comm",
                                               "no MoE all-to-all overlap (model.overlap_moe_expert_parallel_comm)"}}) {
      if (locations.count(key) == 0) {
        locations[key] = script_location(model, path, job.launch->program->offset);
        job.assumed.emplace_back(words);
      }
    }
  }
  place_job(model, path, std::move(locations), job);
}

} // namespace lg::audit
