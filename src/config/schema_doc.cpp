#include "config/schema_doc.hpp"

#include "config/key_effects.hpp"
#include "config/toml_reader.hpp"

#include <fmt/format.h>

namespace lg::config {

namespace {

std::string cell(const std::string& text)
{
  std::string out;
  for (char c : text) {
    out += c == '|' ? std::string("\\|") : std::string(1, c);
  }
  return out.empty() ? "" : "`" + out + "`";
}

} // namespace

std::string job_file_reference()
{
  std::string out;
  for (const Section& section : job_schema()) {
    out += fmt::format("\n### `[{}]`\n\n", section.name);
    if (section.any_key) {
      out += "Any `NAME = \"value\"`: an environment variable for the job (a valid shell name; "
             "`launchguard env --explain` shows how it layers over the policy).\n";
      continue;
    }
    out += "| key | type | range / values | default | what it changes |\n|---|---|---|---|---|\n";
    for (const auto& [name, key] : section.keys) {
      out += fmt::format("| `{}` | {} | {} | {} | {} |\n", name, key.type.empty() ? "see below" : key.type,
                         key.type == "one of" ? key.range : cell(key.range), cell(key.default_value),
                         key_effect(section.name + "." + name));
    }
  }
  return out;
}

} // namespace lg::config
