// The failure-signature catalogue: data, not code. The shipped catalogue is
// signatures/default.toml (also built into the binary); users add their own
// files of the same layout. Parsing is pure: text in, Catalogue out; the CLI
// reads the files.
#pragma once

#include "util/diagnostic.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lg::diagnose {

// One recognisable failure message (or one fact about the job).
struct Signature
{
  std::string id;        // stable, unique: "torch-cuda-oom"
  std::string category;  // a failure category (category.hpp); empty for a fact
  std::string fact;      // "expandable_segments_set", …; empty for a failure
  int rank = 50;         // causal rank: lower is more fundamental
  double confidence = 0.8;
  std::vector<std::string> patterns;  // RE2, matched per line
  std::vector<std::string> negative;  // RE2: a matching line is not a hit
  std::string parse;                  // "" or "torch_oom"
  std::optional<std::string> fix;     // overrides the category's
  std::optional<std::string> suggested_change;
  std::optional<bool> retryable;
  SourceLocation where;  // where the signature was defined
};

// The defaults of one category: a fix written as a job change.
struct CategoryInfo
{
  std::string fix;
  std::string suggested_change;  // a fix id ("expandable_segments") or empty
  bool retryable = false;
  // The broader category this one refines ("port_in_use" refines
  // "config_error"), or empty. A label of the broader category accepts it.
  std::string refines;
};

struct Catalogue
{
  std::vector<Signature> signatures;
  std::map<std::string, CategoryInfo> categories;
};

// Return the failure categories (category.hpp), in its order, including
// "unknown" and "none".
const std::vector<std::string>& category_names();

// Return true if `predicted` is `label` or refines it (catalogue's `refines`
// chain), so a set labelled with the broader name still accepts it.
bool is_same_or_refines(const Catalogue& catalogue, const std::string& predicted, const std::string& label);

// Return the facts the diagnosis understands.
const std::vector<std::string>& fact_names();

// Parse catalogue `text`; `display_name` is used in messages. Every pattern
// is compiled to check it. Throws InputError "file:line:column: message" with
// a hint on invalid TOML, unknown keys (with "did you mean"), unknown
// categories, duplicate ids or patterns RE2 rejects.
Catalogue parse_catalogue(std::string_view text, const std::string& display_name);

// Add `extra` to `base`: a signature whose id is already in `base` replaces
// it in place, new ones are appended; category entries of `extra` win.
void merge_catalogue(Catalogue& base, const Catalogue& extra);

// Write `catalogue` as TOML that parse_catalogue reads back to an equal
// catalogue (locations aside).
std::string to_toml(const Catalogue& catalogue);

// Return the text of signatures/default.toml as built into the binary.
std::string_view default_catalogue_text();

// Return the built-in catalogue, parsed.
Catalogue default_catalogue();

} // namespace lg::diagnose
