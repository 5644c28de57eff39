// Megatron Bridge ConfigContainer values in Hydra/OmegaConf override syntax,
// and the setters built on them (bridge_mapping.hpp).
#include "config/bridge_mapping.hpp"

#include "util/strings.hpp"

#include <algorithm>
#include <cctype>

namespace lg::config::bridge {

namespace {

std::string unquote_bridge_scalar(std::string_view text)
{
  text = trim(text);
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front()) {
    return std::string(text.substr(1, text.size() - 2));
  }
  return std::string(text);
}

} // namespace

std::string to_lower(std::string_view text)
{
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

Value parse_value(std::string_view raw)
{
  Value v;
  const std::string_view text = trim(raw);
  if (text == "null" || text == "None" || text == "~") {
    v.null = true;
    return v;
  }
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    v.list = true;
    const std::string_view inner = trim(text.substr(1, text.size() - 2));
    if (!inner.empty()) {
      for (const auto& item : split(std::string(inner), ',')) {
        v.items.push_back(unquote_bridge_scalar(item));
      }
    }
    v.text = std::string(text);
    return v;
  }
  v.text = unquote_bridge_scalar(text);
  v.items = {v.text};
  return v;
}

std::string describe(const Value& v)
{
  return v.null ? "null" : fmt::format("'{}'", v.text);
}

std::optional<long long> to_integer(const Value& v)
{
  long long out = 0;
  const auto& t = v.text;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  if (ec != std::errc() || end != t.data() + t.size() || v.list) {
    return std::nullopt;
  }
  return out;
}

std::optional<bool> to_bool(const Value& v)
{
  const std::string t = to_lower(v.text);
  if (t == "true" || t == "1") {
    return true;
  }
  if (t == "false" || t == "0") {
    return false;
  }
  return std::nullopt;
}


// Values of these fields mean "off", so no not-modelled note is due.
bool is_default_off(const Value& v)
{
  if (v.null || v.text.empty()) {
    return true;
  }
  const std::string t = to_lower(v.text);
  return t == "false" || t == "0" || t == "none" || t == "[]" || (v.list && v.items.empty());
}

Setter choice(std::vector<std::string> names, std::function<void(JobSpec&, std::size_t)> store)
{
  return [=](JobSpec& s, const Value& v) -> std::string {
    std::string text = v.null ? "null" : v.text;
    // Enum values as OmegaConf writes them: "AttnBackend.fused".
    if (const auto dot = text.rfind('.'); dot != std::string::npos && !v.null) {
      text = text.substr(dot + 1);
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (to_lower(names[i]) == to_lower(text)) {
        store(s, i);
        return {};
      }
    }
    return fmt::format("must be one of {}, got {}", fmt::join(names, ", "), describe(v));
  };
}


std::string set_layer_freq(JobSpec& s, const Value& v)
{
  auto& pattern = ensure_moe(s).layer_pattern;
  if (v.list) {
    pattern.clear();
    for (const auto& item : v.items) {
      if (item != "0" && item != "1") {
        return fmt::format("entries must be 0 or 1, got '{}'", item);
      }
      pattern.push_back(item == "1" ? 1 : 0);
    }
    return {};
  }
  const auto n = to_integer(v);
  if (!n || *n < 1 || *n > 1000) {
    return fmt::format("must be an integer frequency or a list of 0/1, got {}", describe(v));
  }
  pattern = {-static_cast<int>(*n)};  // expanded once num_layers is known (loader finish_job)
  return {};
}

std::string set_dtype(std::string& target, const Value& v, const std::vector<std::string>& allowed)
{
  std::string t = to_lower(v.text);
  if (t.starts_with("torch.")) {
    t = t.substr(6);
  }
  static const std::map<std::string, std::string> aliases = {
    {"float32", "fp32"}, {"float", "fp32"}, {"bfloat16", "bf16"}, {"float16", "fp16"}, {"half", "fp16"},
    {"uint8", "fp8"}, {"float8_e4m3fn", "fp8"}};
  if (const auto it = aliases.find(t); it != aliases.end()) {
    t = it->second;
  }
  if (std::find(allowed.begin(), allowed.end(), t) == allowed.end()) {
    return fmt::format("must be one of {} (torch dtypes accepted), got {}", fmt::join(allowed, ", "), describe(v));
  }
  target = t;
  return {};
}

} // namespace lg::config::bridge
