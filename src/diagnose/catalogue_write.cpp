// Writing a catalogue back to TOML (round trip with parse_catalogue), and the
// built-in copy of signatures/default.toml.
#include "diagnose/catalogue.hpp"

#include <toml++/toml.h>

#include <sstream>

namespace lg::diagnose {

namespace {

toml::array to_array(const std::vector<std::string>& values)
{
  toml::array array;
  for (const auto& value : values) {
    array.push_back(value);
  }
  return array;
}

toml::table to_table(const Signature& sig)
{
  toml::table table;
  table.insert("id", sig.id);
  if (!sig.category.empty()) {
    table.insert("category", sig.category);
  }
  if (!sig.fact.empty()) {
    table.insert("fact", sig.fact);
  }
  table.insert("rank", sig.rank);
  table.insert("confidence", sig.confidence);
  table.insert("patterns", to_array(sig.patterns));
  if (!sig.negative.empty()) {
    table.insert("negative", to_array(sig.negative));
  }
  if (!sig.parse.empty()) {
    table.insert("parse", sig.parse);
  }
  if (sig.fix) {
    table.insert("fix", *sig.fix);
  }
  if (sig.suggested_change) {
    table.insert("suggested_change", *sig.suggested_change);
  }
  if (sig.retryable) {
    table.insert("retryable", *sig.retryable);
  }
  return table;
}

} // namespace

std::string to_toml(const Catalogue& catalogue)
{
  toml::table root;
  root.insert("version", 1);
  toml::table categories;
  for (const auto& [name, info] : catalogue.categories) {
    toml::table entry{{"fix", info.fix}, {"suggested_change", info.suggested_change}, {"retryable", info.retryable}};
    if (!info.refines.empty()) {
      entry.insert("refines", info.refines);
    }
    categories.insert(name, std::move(entry));
  }
  root.insert("categories", std::move(categories));
  toml::array signatures;
  for (const auto& sig : catalogue.signatures) {
    signatures.push_back(to_table(sig));
  }
  root.insert("signature", std::move(signatures));
  std::ostringstream out;
  out << toml::toml_formatter(root) << '\n';
  return out.str();
}

Catalogue default_catalogue()
{
  return parse_catalogue(default_catalogue_text(), "<built-in>/signatures/default.toml");
}

} // namespace lg::diagnose
