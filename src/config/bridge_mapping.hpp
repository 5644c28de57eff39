// The pieces of the one Megatron Bridge mapping (bridge_keys.hpp) shared by
// the files that implement it; internal to src/config. A ConfigContainer
// value is parsed once (bridge_value.cpp), each key has a setter in the key
// table (bridge_keys_model.cpp, bridge_keys_training.cpp), and the fields
// Megatron resolves together wait for all settings (bridge_joint_fields.cpp).
#pragma once

#include "config/bridge_keys.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace lg::config::bridge {

// A value in Hydra override syntax, unquoted.
struct Value
{
  std::string text;
  bool null = false;
  bool list = false;
  std::vector<std::string> items;
};

// `text` in lower case (ASCII).
std::string to_lower(std::string_view text);

// Parse `raw` as Hydra override syntax: null/None/~, a [a, b] list, or a
// scalar with its quotes removed.
Value parse_value(std::string_view raw);

// A setter returns an error message, or empty on success.
using Setter = std::function<std::string(JobSpec&, const Value&)>;

// How a value reads in a message: null, or 'text'.
std::string describe(const Value& v);

// The value as an integer / a boolean (true/false/1/0), if it is one.
std::optional<long long> to_integer(const Value& v);
std::optional<bool> to_bool(const Value& v);

// Whether the value means "off" (null, false, 0, none, []): no not-modelled
// note is due for it.
bool is_default_off(const Value& v);

template<typename Get>
Setter integer(Get get, long long min, long long max, bool nullable = false, long long null_value = 0)
{
  return [=](JobSpec& s, const Value& v) -> std::string {
    using T = std::remove_reference_t<decltype(get(s))>;
    if (v.null) {
      if (!nullable) {
        return "must be an integer, got null";
      }
      if constexpr (std::is_same_v<T, std::optional<int>>) {
        get(s).reset();
      } else {
        get(s) = static_cast<T>(null_value);
      }
      return {};
    }
    const auto n = to_integer(v);
    if (!n) {
      return fmt::format("must be an integer, got {}", describe(v));
    }
    if (*n < min || *n > max) {
      return fmt::format("must be between {} and {}, got {}", min, max, *n);
    }
    get(s) = static_cast<int>(*n);
    if constexpr (std::is_same_v<T, std::int64_t>) {
      get(s) = *n;
    }
    return {};
  };
}

template<typename Get>
Setter boolean(Get get, bool invert = false)
{
  return [=](JobSpec& s, const Value& v) -> std::string {
    const auto b = to_bool(v);
    if (!b) {
      return fmt::format("must be true or false, got {}", describe(v));
    }
    get(s) = invert ? !*b : *b;
    return {};
  };
}

template<typename Get>
Setter number(Get get, double min, double max)
{
  return [=](JobSpec& s, const Value& v) -> std::string {
    double out = 0;
    const auto& t = v.text;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    if (v.null || ec != std::errc() || end != t.data() + t.size() || !(out >= min && out <= max)) {
      return fmt::format("must be a number between {} and {}, got {}", min, max, describe(v));
    }
    get(s) = out;
    return {};
  };
}

// A string restricted to `names`; `store(spec, index)` keeps it.
Setter choice(std::vector<std::string> names, std::function<void(JobSpec&, std::size_t)> store);

template<typename Get>
Setter strings(Get get)
{
  return [=](JobSpec& s, const Value& v) -> std::string {
    get(s) = v.null ? std::vector<std::string>{} : v.items;
    return {};
  };
}

// model.moe_layer_freq: an integer frequency or a list of 0/1.
std::string set_layer_freq(JobSpec& s, const Value& v);

// A torch dtype ("torch.bfloat16", "bf16") into `target`, one of `allowed`.
std::string set_dtype(std::string& target, const Value& v, const std::vector<std::string>& allowed);

// A key table entry: the JobSpec keys a ConfigContainer key writes, and how.
struct Entry
{
  std::vector<std::string> job_keys;
  Setter set;
};

using KeyTable = std::map<std::string, Entry, std::less<>>;

// Every ConfigContainer key with a setter: the model provider's
// (parallelism, shape, MoE, MLA) and the training ones (recompute, attention,
// offloading, overlap, batch, optimizer, FSDP, PEFT).
const KeyTable& key_table();
void add_model_keys(KeyTable& t);
void add_training_keys(KeyTable& t);

// Record `where` for `job_key` and for each enclosing section not yet located,
// so a rule asking for "training.recompute" finds the setting too.
void record(JobSpec& spec, const std::string& job_key, const SourceLocation& where);

// A setting waiting for the others it is resolved with: its index and value.
using PendingSetting = std::optional<std::pair<std::size_t, Value>>;

// The precision settings Megatron resolves together, gathered from model.*,
// mixed_precision.* and a named mixed_precision recipe.
struct Pending
{
  PendingSetting fp8, fp8_recipe, fp4, fp4_recipe, fp16, recipe;
  PendingSetting activation, gated, cpu_offloading, cpu_layers;
  PendingSetting enable_graph, graph_impl, external_graph;
  PendingSetting optimizer_offload, offload_fraction, peft_target;
};

// Which Pending slot `key` belongs to, if any.
PendingSetting* pending_slot(Pending& p, std::string_view key);

// Apply the pending settings to `spec` once all are read; errors and
// not-modelled notes go to out[index].
void resolve_pending(JobSpec& spec, const Pending& p, const std::vector<BridgeSetting>& settings,
                     std::vector<BridgeOutcome>& out);

} // namespace lg::config::bridge

// Accessor lambda for a JobSpec member, in the key tables.
#define LG_BRIDGE_AT(expr) [](JobSpec& job) -> auto& { return job.expr; }
