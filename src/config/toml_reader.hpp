// Typed reads from toml++ nodes that never throw: each problem becomes a
// located message in `problems`, so a job file with five mistakes reports
// five lines, not one (mold's collect-then-stop).
#pragma once

#include "config/job_spec.hpp"

#include <toml++/toml.h>

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace lg::config {

struct Problem
{
  SourceLocation where;
  std::string message;
  std::string hint;
};

class TomlReader
{
public:
  TomlReader(JobSpec& spec, std::string file);

  // The key being read, as a dotted path ("parallelism.tp"). Set by the
  // schema walker before each setter runs.
  void set_key(std::string key, const SourceLocation& where);
  const std::string& key() const { return m_key; }

  std::optional<std::int64_t> integer(const toml::node& node, std::int64_t min, std::int64_t max);
  std::optional<double> number(const toml::node& node, double min, double max);
  std::optional<bool> boolean(const toml::node& node);
  std::optional<std::string> string(const toml::node& node);
  std::optional<std::vector<std::string>> string_list(const toml::node& node);
  // Return the index of the node's string in `names` (case-insensitive, '-'
  // and '_' equivalent); report the allowed names otherwise.
  std::optional<std::size_t> choice(const toml::node& node, const std::vector<std::string>& names);

  void report(const toml::node& node, std::string message, std::string hint = {});
  void report_at(SourceLocation where, std::string message, std::string hint = {});
  SourceLocation location(const toml::node& node) const;
  SourceLocation location(const toml::source_region& source) const;

  JobSpec& spec() { return m_spec; }
  std::vector<Problem>& problems() { return m_problems; }
  const std::string& file() const { return m_file; }
  void set_file(std::string file) { m_file = std::move(file); }

private:
  JobSpec& m_spec;
  std::string m_file;
  std::string m_key;
  std::vector<Problem> m_problems;
};

// Describe a node's type and value for messages: `string "four"`, `integer 4`.
std::string describe(const toml::node& node);

// A section's keys and what to do with each.
using Setter = std::function<void(TomlReader&, const toml::node&)>;

// One key: how it is read, and what docs/job-file.md says about it (filled by
// the schema's key helpers; a hand-written setter documents itself with
// Key::described).
struct Key
{
  Setter set;
  std::string type;           // "integer", "number", "boolean", "string", "list of strings", "one of"
  std::string range;          // "1..10000", "\"none\", \"selective\"", or empty
  std::string default_value;  // as written in TOML; "unset" when the key is optional

  Key() = default;
  template<typename F>
    requires std::is_invocable_v<F&, TomlReader&, const toml::node&>
  Key(F f) : set(std::move(f)) {}  // NOLINT(google-explicit-constructor): a bare setter is a key
  Key(Setter s, std::string t, std::string r, std::string d)
    : set(std::move(s)), type(std::move(t)), range(std::move(r)), default_value(std::move(d)) {}

  void operator()(TomlReader& reader, const toml::node& node) const { set(reader, node); }
  // This key with its documentation.
  Key described(std::string t, std::string r, std::string d) &&
  {
    type = std::move(t);
    range = std::move(r);
    default_value = std::move(d);
    return std::move(*this);
  }
};

struct Section
{
  std::string name;  // "parallelism", "model.moe"
  std::map<std::string, Key, std::less<>> keys;
  Setter any_key;  // when set, every key of the section goes here ([env])
};

// The job-file schema: one Section per TOML table (schema.cpp).
const std::vector<Section>& job_schema();

// The [gpu] table of presets/gpus/*.toml, read into `gpu`.
Section gpu_schema(GpuSpec& gpu);

// Walk `table` (the root of a job or preset file) against `schema`, calling
// setters and reporting unknown sections/keys with a "did you mean" hint.
// `skip` names keys handled by the caller (e.g. "model.preset").
void walk(TomlReader& reader,
          const toml::table& table,
          const std::vector<Section>& schema,
          const std::vector<std::string>& skip);

struct LoadOptions;

// Load a job from `table` as load_job_text does (config/loader.cpp), also
// for a table built in memory (a JSON line, config/job_json.hpp): there only
// the keys carry positions (line `line` of `display_name`), and a finding on
// the whole job is located at that line.
JobSpec load_job_table(const toml::table& table, const std::string& display_name, const LoadOptions& options,
                       int line = 0);

} // namespace lg::config
