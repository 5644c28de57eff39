#include "config/toml_reader.hpp"

#include "util/edit_distance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace lg::config {

TomlReader::TomlReader(JobSpec& spec, std::string file)
  : m_spec(spec),
    m_file(std::move(file))
{
}

void TomlReader::set_key(std::string key, const SourceLocation& where)
{
  m_key = std::move(key);
  m_spec.locations[m_key] = where;
}

SourceLocation TomlReader::location(const toml::node& node) const
{
  // A value built in memory (a JSON line) has no position: its key's.
  if (node.source().begin.line == 0 && !m_key.empty()) {
    if (const auto it = m_spec.locations.find(m_key); it != m_spec.locations.end()) {
      return it->second;
    }
  }
  return location(node.source());
}

SourceLocation TomlReader::location(const toml::source_region& source) const
{
  if (source.begin.line == 0) {
    return SourceLocation{m_file, m_spec.source_line, 0};  // built in memory: the job's line, if any
  }
  return SourceLocation{m_file, static_cast<int>(source.begin.line),
                        static_cast<int>(source.begin.column)};
}

void TomlReader::report(const toml::node& node, std::string message, std::string hint)
{
  report_at(location(node), std::move(message), std::move(hint));
}

void TomlReader::report_at(SourceLocation where, std::string message, std::string hint)
{
  m_problems.push_back(Problem{std::move(where), std::move(message), std::move(hint)});
}

std::string describe(const toml::node& node)
{
  if (const auto* s = node.as_string()) {
    return fmt::format("string \"{}\"", s->get());
  }
  if (const auto* i = node.as_integer()) {
    return fmt::format("integer {}", i->get());
  }
  if (const auto* f = node.as_floating_point()) {
    return fmt::format("number {}", f->get());
  }
  if (const auto* b = node.as_boolean()) {
    return fmt::format("boolean {}", b->get());
  }
  if (node.is_array()) {
    return "an array";
  }
  if (node.is_table()) {
    return "a table";
  }
  return "a date/time";
}

std::optional<std::int64_t> TomlReader::integer(const toml::node& node, std::int64_t min, std::int64_t max)
{
  std::optional<std::int64_t> value;
  if (const auto* i = node.as_integer()) {
    value = i->get();
  } else if (const auto* f = node.as_floating_point()) {
    // 70.55e9 is a natural way to write a parameter count.
    const double d = f->get();
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.0e18) {
      value = static_cast<std::int64_t>(d);
    }
  }
  if (!value) {
    report(node, fmt::format("{} must be an integer, got {}", m_key, describe(node)),
           fmt::format("write {} = {}", m_key.substr(m_key.rfind('.') + 1), min > 0 ? min : 1));
    return std::nullopt;
  }
  if (*value < min || *value > max) {
    report(node, fmt::format("{} must be between {} and {}, got {}", m_key, min, max, *value));
    return std::nullopt;
  }
  return value;
}

std::optional<double> TomlReader::number(const toml::node& node, double min, double max)
{
  std::optional<double> value;
  if (const auto* i = node.as_integer()) {
    value = static_cast<double>(i->get());
  } else if (const auto* f = node.as_floating_point()) {
    value = f->get();
  }
  if (!value) {
    report(node, fmt::format("{} must be a number, got {}", m_key, describe(node)));
    return std::nullopt;
  }
  if (!std::isfinite(*value) || *value < min || *value > max) {
    report(node, fmt::format("{} must be between {} and {}, got {}", m_key, min, max, *value));
    return std::nullopt;
  }
  return value;
}

std::optional<bool> TomlReader::boolean(const toml::node& node)
{
  if (const auto* b = node.as_boolean()) {
    return b->get();
  }
  report(node, fmt::format("{} must be true or false, got {}", m_key, describe(node)),
         fmt::format("write {} = true", m_key.substr(m_key.rfind('.') + 1)));
  return std::nullopt;
}

std::optional<std::string> TomlReader::string(const toml::node& node)
{
  if (const auto* s = node.as_string()) {
    return s->get();
  }
  report(node, fmt::format("{} must be a string, got {}", m_key, describe(node)),
         fmt::format("quote the value: {} = \"…\"", m_key.substr(m_key.rfind('.') + 1)));
  return std::nullopt;
}

std::optional<std::vector<std::string>> TomlReader::string_list(const toml::node& node)
{
  const auto* array = node.as_array();
  if (array == nullptr) {
    report(node, fmt::format("{} must be an array of strings, got {}", m_key, describe(node)),
           fmt::format("write {} = [\"…\"]", m_key.substr(m_key.rfind('.') + 1)));
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (const auto& element : *array) {
    const auto* s = element.as_string();
    if (s == nullptr) {
      report(element, fmt::format("{} must contain only strings, got {}", m_key, describe(element)));
      return std::nullopt;
    }
    out.push_back(s->get());
  }
  return out;
}

static std::string normalise_choice(std::string_view text)
{
  std::string out;
  for (char c : text) {
    out += c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::optional<std::size_t> TomlReader::choice(const toml::node& node, const std::vector<std::string>& names)
{
  const auto text = string(node);
  if (!text) {
    return std::nullopt;
  }
  const std::string wanted = normalise_choice(*text);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (normalise_choice(names[i]) == wanted) {
      return i;
    }
  }
  std::string allowed;
  for (const auto& n : names) {
    allowed += allowed.empty() ? "" : ", ";
    allowed += "\"" + n + "\"";
  }
  std::string hint;
  if (auto near = nearest(*text, names)) {
    hint = fmt::format("did you mean \"{}\"?", *near);
  }
  report(node, fmt::format("{} must be one of {}, got \"{}\"", m_key, allowed, *text), hint);
  return std::nullopt;
}

static std::vector<std::string> names_of(const Section& section)
{
  std::vector<std::string> names;
  for (const auto& [name, setter] : section.keys) {
    names.push_back(name);
  }
  return names;
}

static const Section* find_section(const std::vector<Section>& schema, std::string_view name)
{
  for (const auto& section : schema) {
    if (section.name == name) {
      return &section;
    }
  }
  return nullptr;
}

static void walk_table(TomlReader& reader,
                       const toml::table& table,
                       const std::string& prefix,
                       const std::vector<Section>& schema,
                       const std::vector<std::string>& skip);

static void walk_key(TomlReader& reader,
                     const Section& section,
                     const toml::key& toml_key,
                     const toml::node& node,
                     const std::vector<Section>& schema,
                     const std::vector<std::string>& skip)
{
  const std::string key(toml_key.str());
  const std::string dotted = section.name + "." + key;
  if (std::find(skip.begin(), skip.end(), dotted) != skip.end()) {
    return;
  }
  const SourceLocation key_where = reader.location(toml_key.source());
  if (section.any_key) {
    reader.set_key(dotted, key_where);
    section.any_key(reader, node);
    return;
  }
  if (const auto* sub = node.as_table(); sub != nullptr && find_section(schema, dotted) != nullptr) {
    reader.spec().locations[dotted] = key_where;
    walk_table(reader, *sub, dotted, schema, skip);
    return;
  }
  if (const auto it = section.keys.find(key); it != section.keys.end()) {
    reader.set_key(dotted, key_where);
    it->second(reader, node);
    return;
  }
  std::vector<std::string> candidates = names_of(section);
  for (const auto& s : schema) {
    if (s.name.starts_with(section.name + ".")) {
      candidates.push_back(s.name.substr(section.name.size() + 1));
    }
  }
  std::string hint;
  if (auto near = nearest(key, candidates)) {
    hint = fmt::format("did you mean '{}'?", *near);
  } else {
    hint = fmt::format("known keys in [{}]: {}", section.name, fmt::format("{}", fmt::join(candidates, ", ")));
  }
  reader.report_at(key_where, fmt::format("unknown key '{}' in [{}]", key, section.name), hint);
}

static void walk_table(TomlReader& reader,
                       const toml::table& table,
                       const std::string& prefix,
                       const std::vector<Section>& schema,
                       const std::vector<std::string>& skip)
{
  const Section* section = find_section(schema, prefix);
  if (section == nullptr) {
    return;
  }
  for (const auto& [key, node] : table) {
    walk_key(reader, *section, key, node, schema, skip);
  }
}

void walk(TomlReader& reader,
          const toml::table& table,
          const std::vector<Section>& schema,
          const std::vector<std::string>& skip)
{
  std::vector<std::string> top;
  for (const auto& section : schema) {
    if (section.name.find('.') == std::string::npos) {
      top.push_back(section.name);
    }
  }
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    const auto* sub = node.as_table();
    // A section's place: its table's (a [header]), else its key's (a JSON line).
    const SourceLocation where = node.source().begin.line != 0 ? reader.location(node) : reader.location(key.source());
    if (sub != nullptr && find_section(schema, name) != nullptr) {
      reader.spec().locations.emplace(name, where);
      walk_table(reader, *sub, name, schema, skip);
      continue;
    }
    std::string hint;
    if (auto near = nearest(name, top)) {
      hint = fmt::format("did you mean [{}]?", *near);
    } else {
      hint = fmt::format("known sections: {}", fmt::format("{}", fmt::join(top, ", ")));
    }
    if (sub != nullptr) {
      reader.report_at(where, fmt::format("unknown section [{}]", name), hint);
    } else {
      reader.report_at(where, fmt::format("key '{}' must be inside a section", name), hint);
    }
  }
}

} // namespace lg::config
