// util/terminal: job and log text reach the terminal escaped. The escapes
// are the classic ones: ESC [ 2 J (clear screen), OSC 52 (write the
// clipboard), CR (overprint), the 8-bit CSI 0x9b and U+202E (bidi override).
#include "util/terminal.hpp"

#include <doctest/doctest.h>

TEST_SUITE_BEGIN("util");

TEST_CASE("printable: control sequences are shown, not sent")
{
  CHECK(lg::printable("a\x1b[2Jb") == "a\\x1b[2Jb");
  CHECK(lg::printable("\x1b]52;c;ZXZpbA==\x07") == "\\x1b]52;c;ZXZpbA==\\x07");
  CHECK(lg::printable("ok\rFAILED") == "ok\\x0dFAILED");
  CHECK(lg::printable("\x7f") == "\\x7f");
  CHECK(lg::printable("\xc2\x9b" "31m") == "\\u009b31m");
  CHECK(lg::printable("\xe2\x80\xae" "txt.exe") == "\\u202etxt.exe");
  CHECK(lg::printable("\x9b" "31m") == "\\x9b31m");
}

TEST_CASE("printable: text, tabs, newlines and UTF-8 are unchanged")
{
  CHECK(lg::printable("a\tb\nc") == "a\tb\nc");
  CHECK(lg::printable("79.10 GiB — ü €") == "79.10 GiB — ü €");
  CHECK(lg::printable("\xe2\x82") == "\\xe2\\x82");  // a cut sequence
}

TEST_SUITE_END();
