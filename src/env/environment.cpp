#include "env/environment.hpp"

#include "env/allocator_settings.hpp"

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
  return allocator_settings_of(environment).expandable_in_effect();
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
