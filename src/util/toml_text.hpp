// The one way the project parses TOML text (job files, presets, failure
// signature catalogues): the nesting guard first, then toml++, with a parse
// error turned into a located InputError (exit 2).
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>

namespace lg {

// Parse `text` (named `display_name` in messages). Throws InputError
// "<name>:<line>:<column>: invalid TOML: <toml++'s description>" with `hint`,
// or the nesting guard's error for text nested deeper than toml++ can take.
toml::table parse_toml_text(std::string_view text, const std::string& display_name, std::string hint);

} // namespace lg
