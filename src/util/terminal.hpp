// The one sanitiser for text that reaches a terminal: job values, log lines
// and file names can carry escape sequences (ESC [ 2 J, OSC 52 clipboard
// writes, a carriage return that overprints, bidi overrides that reorder what
// is shown). They are shown escaped, never sent raw.
#pragma once

#include <string>
#include <string_view>

namespace lg {

// Return `text` with every control character except tab and newline, every
// C1 control (U+0080-U+009F), every bidi override (U+202A-U+202E,
// U+2066-U+2069) and every byte that is not valid UTF-8 written as a visible
// escape: "\x1b", "\u009b", "\u202e". Other text, UTF-8 included, is unchanged.
std::string printable(std::string_view text);

} // namespace lg
