// libFuzzer target: the input as one job log, diagnosed with the built-in
// catalogue; then the same bytes as a signature catalogue (TOML), which must
// parse or end in lg::Error, and when it parses must compile into a Matcher.
#include "diagnose/catalogue.hpp"
#include "diagnose/diagnose.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  static const lg::diagnose::Matcher matcher(lg::diagnose::default_catalogue());
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  lg::diagnose::ScanOptions scan;
  scan.threads = 1;  // libFuzzer wants deterministic, single-threaded work
  scan.block_bytes = 256;  // small blocks: exercise the bisection on small inputs
  const std::vector<lg::diagnose::LogFile> logs = {{"fuzz.log", text}};
  const lg::diagnose::Diagnosis diagnosis = lg::diagnose::diagnose(logs, matcher, {}, scan);
  (void)diagnosis;
  try {
    lg::diagnose::Catalogue catalogue = lg::diagnose::parse_catalogue(text, "fuzz.toml");
    const lg::diagnose::Matcher own(std::move(catalogue));
    (void)own;
  } catch (const lg::Error&) {
  }
  return 0;
}
