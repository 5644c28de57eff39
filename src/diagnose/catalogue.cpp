// Reading a catalogue from TOML text. The first problem stops the read with
// its location: a catalogue is short and written by hand, so one precise
// message at a time is enough.
#include "diagnose/catalogue.hpp"

#include "diagnose/category.hpp"

#include "util/edit_distance.hpp"
#include "util/error.hpp"
#include "util/toml_text.hpp"

#include <fmt/format.h>
#include <re2/re2.h>
#include <toml++/toml.h>

#include <algorithm>
#include <set>

namespace lg::diagnose {

namespace {

const std::vector<std::string> k_top_keys = {"version", "categories", "signature"};
const std::vector<std::string> k_signature_keys = {
  "id", "category", "fact", "rank", "confidence", "patterns", "negative",
  "parse", "fix", "suggested_change", "retryable"};
const std::vector<std::string> k_category_keys = {"fix", "suggested_change", "retryable", "refines"};
const std::vector<std::string> k_parsers = {"torch_oom"};

class Reader
{
public:
  explicit Reader(std::string file)
    : m_file(std::move(file))
  {
  }

  SourceLocation where(const toml::source_region& source) const
  {
    return {m_file, static_cast<int>(source.begin.line), static_cast<int>(source.begin.column)};
  }

  [[noreturn]] void fail(const toml::source_region& source, const std::string& message,
                         const std::string& hint = {}) const
  {
    InputError error("{}:{}:{}: {}", m_file, source.begin.line, source.begin.column, message);
    error.hint = hint;
    throw error;
  }

  // Fail unless every key of `table` is in `allowed`.
  void check_keys(const toml::table& table, const std::vector<std::string>& allowed,
                  std::string_view what) const
  {
    for (const auto& [key, node] : table) {
      if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) {
        continue;
      }
      const auto suggestion = nearest(key.str(), allowed);
      fail(key.source(), fmt::format("unknown key '{}' in {}", key.str(), what),
           suggestion ? fmt::format("did you mean '{}'?", *suggestion)
                      : fmt::format("allowed keys: {}", fmt::join(allowed, ", ")));
    }
  }

  std::string string(const toml::node& node, std::string_view key) const
  {
    if (const auto* value = node.as_string()) {
      return value->get();
    }
    fail(node.source(), fmt::format("'{}' must be a string", key));
  }

  std::vector<std::string> patterns(const toml::node& node, std::string_view key) const;
  Signature signature(const toml::table& table) const;
  CategoryInfo category(const toml::table& table) const;

private:
  std::string m_file;
};

// Compile `pattern` as the matcher will; fail at `node` when RE2 rejects it.
void check_pattern(const Reader& reader, const toml::node& node, const std::string& pattern)
{
  RE2::Options options;
  options.set_log_errors(false);
  const RE2 regex(pattern, options);
  if (!regex.ok()) {
    reader.fail(node.source(),
                fmt::format("pattern '{}' does not compile: {}", pattern, regex.error()),
                "patterns use RE2 syntax: no backreferences, no lookahead or lookbehind");
  }
}

std::vector<std::string> Reader::patterns(const toml::node& node, std::string_view key) const
{
  const auto* array = node.as_array();
  if (array == nullptr) {
    fail(node.source(), fmt::format("'{}' must be an array of strings", key),
         fmt::format("write {} = ['first pattern', 'second pattern']", key));
  }
  std::vector<std::string> result;
  for (const auto& element : *array) {
    result.push_back(string(element, key));
    check_pattern(*this, element, result.back());
  }
  return result;
}

bool is_known(const std::vector<std::string>& names, const std::string& name)
{
  return std::find(names.begin(), names.end(), name) != names.end();
}

void check_name(const Reader& reader, const toml::node& node, const std::string& name,
                const std::vector<std::string>& names, std::string_view what)
{
  if (is_known(names, name)) {
    return;
  }
  const auto suggestion = nearest(name, names);
  reader.fail(node.source(), fmt::format("unknown {} '{}'", what, name),
              suggestion ? fmt::format("did you mean '{}'?", *suggestion)
                         : fmt::format("known: {}", fmt::join(names, ", ")));
}

// Read one value of a [[signature]] table into `sig`.
void read_signature_key(const Reader& reader, Signature& sig, const std::string& key,
                        const toml::node& node)
{
  if (key == "id") {
    sig.id = reader.string(node, key);
  } else if (key == "category") {
    sig.category = reader.string(node, key);
    check_name(reader, node, sig.category, category_names(), "category");
  } else if (key == "fact") {
    sig.fact = reader.string(node, key);
    check_name(reader, node, sig.fact, fact_names(), "fact");
  } else if (key == "rank") {
    const auto rank = node.value<std::int64_t>();
    if (!node.is_integer() || !rank || *rank < 0 || *rank > 1000) {
      reader.fail(node.source(), "'rank' must be an integer from 0 to 1000");
    }
    sig.rank = static_cast<int>(*rank);
  } else if (key == "confidence") {
    const auto confidence = node.value<double>();
    if (!confidence || *confidence < 0.0 || *confidence > 1.0) {
      reader.fail(node.source(), "'confidence' must be a number from 0 to 1");
    }
    sig.confidence = *confidence;
  } else if (key == "patterns" || key == "negative") {
    (key == "patterns" ? sig.patterns : sig.negative) = reader.patterns(node, key);
  } else if (key == "parse") {
    sig.parse = reader.string(node, key);
    check_name(reader, node, sig.parse, k_parsers, "parser");
  } else if (key == "fix") {
    sig.fix = reader.string(node, key);
  } else if (key == "suggested_change") {
    sig.suggested_change = reader.string(node, key);
  } else if (key == "retryable") {
    if (!node.is_boolean()) {
      reader.fail(node.source(), "'retryable' must be true or false");
    }
    sig.retryable = node.value<bool>();
  }
}

Signature Reader::signature(const toml::table& table) const
{
  check_keys(table, k_signature_keys, "[[signature]]");
  Signature sig;
  sig.where = where(table.source());
  for (const auto& [key, node] : table) {
    read_signature_key(*this, sig, std::string(key.str()), node);
  }
  if (sig.id.empty()) {
    fail(table.source(), "[[signature]] has no 'id'", "add id = \"my-signature\"");
  }
  if (sig.category.empty() == sig.fact.empty()) {
    fail(table.source(), fmt::format("signature '{}' needs exactly one of 'category' or 'fact'", sig.id));
  }
  if (sig.patterns.empty()) {
    fail(table.source(), fmt::format("signature '{}' has no patterns", sig.id),
         "add patterns = ['text of the log line']");
  }
  return sig;
}

CategoryInfo Reader::category(const toml::table& table) const
{
  check_keys(table, k_category_keys, "[categories.*]");
  CategoryInfo info;
  for (const auto& [key, node] : table) {
    if (key.str() == "retryable") {
      if (!node.is_boolean()) {
        fail(node.source(), "'retryable' must be true or false");
      }
      info.retryable = *node.value<bool>();
    } else if (key.str() == "refines") {
      info.refines = string(node, key.str());
      check_name(*this, node, info.refines, category_names(), "category");
    } else {
      (key.str() == "fix" ? info.fix : info.suggested_change) = string(node, key.str());
    }
  }
  return info;
}


void read_categories(const Reader& reader, const toml::node& node, Catalogue& catalogue)
{
  const auto* table = node.as_table();
  if (table == nullptr) {
    reader.fail(node.source(), "'categories' must be a table of [categories.<name>]");
  }
  for (const auto& [name, entry] : *table) {
    const std::string category(name.str());
    check_name(reader, entry, category, category_names(), "category");
    const auto* entry_table = entry.as_table();
    if (entry_table == nullptr) {
      reader.fail(entry.source(), fmt::format("'categories.{}' must be a table", category));
    }
    catalogue.categories[category] = reader.category(*entry_table);
  }
}

void read_signatures(const Reader& reader, const toml::node& node, Catalogue& catalogue)
{
  const auto* array = node.as_array();
  if (array == nullptr || !array->is_array_of_tables()) {
    reader.fail(node.source(), "'signature' must be an array of tables", "write [[signature]]");
  }
  std::set<std::string> ids;
  for (const auto& element : *array) {
    Signature sig = reader.signature(*element.as_table());
    if (!ids.insert(sig.id).second) {
      reader.fail(element.source(), fmt::format("duplicate signature id '{}'", sig.id));
    }
    catalogue.signatures.push_back(std::move(sig));
  }
}

} // namespace

const std::vector<std::string>& category_names()
{
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Category category : all_categories()) {
      out.emplace_back(to_string(category));
    }
    return out;
  }();
  return names;
}

const std::vector<std::string>& fact_names()
{
  static const std::vector<std::string> names = {
    "expandable_segments_set", "expandable_segments_unsupported", "training_finished",
    "exception_ignored",
    "job_failed"};
  return names;
}

Catalogue parse_catalogue(std::string_view text, const std::string& display_name)
{
  const toml::table root =
    parse_toml_text(text, display_name, "patterns are easiest to write as 'literal strings' (no escapes)");
  const Reader reader(display_name);
  reader.check_keys(root, k_top_keys, "the catalogue");
  Catalogue catalogue;
  if (const auto* version = root.get("version")) {
    if (version->value<std::int64_t>() != 1) {
      reader.fail(version->source(), "unsupported catalogue version", "write version = 1");
    }
  }
  if (const auto* categories = root.get("categories")) {
    read_categories(reader, *categories, catalogue);
  }
  if (const auto* signatures = root.get("signature")) {
    read_signatures(reader, *signatures, catalogue);
  }
  return catalogue;
}

bool is_same_or_refines(const Catalogue& catalogue, const std::string& predicted, const std::string& label)
{
  std::string at = predicted;
  for (int depth = 0; depth < 8 && !at.empty(); ++depth) {  // a cycle in a user file ends here
    if (at == label) {
      return true;
    }
    const auto found = catalogue.categories.find(at);
    at = found != catalogue.categories.end() ? found->second.refines : std::string();
  }
  return false;
}

void merge_catalogue(Catalogue& base, const Catalogue& extra)
{
  for (const auto& sig : extra.signatures) {
    auto same = std::find_if(base.signatures.begin(), base.signatures.end(),
                             [&](const Signature& existing) { return existing.id == sig.id; });
    if (same != base.signatures.end()) {
      *same = sig;
    } else {
      base.signatures.push_back(sig);
    }
  }
  for (const auto& [name, info] : extra.categories) {
    base.categories[name] = info;
  }
}

} // namespace lg::diagnose
