#include "env/environment.hpp"

#include "env/allocator_conf.hpp"

namespace lg::env {

const Variable* Environment::find(std::string_view name) const
{
  for (const auto& variable : variables) {
    if (variable.name == name) {
      return &variable;
    }
  }
  return nullptr;
}

const char* to_string(Layer layer)
{
  switch (layer) {
  case Layer::policy:
    return "policy";
  case Layer::preset:
    return "preset";
  case Layer::job:
    return "job";
  case Layer::command_line:
    return "command line";
  }
  return "policy";
}

bool has_expandable_segments(const Environment& environment)
{
  const Variable* v = environment.find(k_alloc_conf);
  if (v == nullptr || v->action == Action::unset) {
    return false;
  }
  const auto value = parse_alloc_conf(v->value).get("expandable_segments");
  return value && alloc_value_is_true(*value);
}

bool is_valid_name(std::string_view name)
{
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) {
    return false;
  }
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '_';
    if (!ok) {
      return false;
    }
  }
  return true;
}

} // namespace lg::env
