// libFuzzer target: job-file TOML text -> JobSpec with the shipped presets.
// Bad input must end in lg::Error (InputError with locations); anything else
// escaping, a crash, UB, a leak or a hang is a bug.
#include "config/loader.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  static const lg::config::LoadOptions options = [] {
    lg::config::LoadOptions o;
    o.preset_dirs.emplace_back(LG_SOURCE_DIR "/presets");
    return o;
  }();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const lg::config::JobSpec spec = lg::config::load_job_text(text, "fuzz.toml", options);
    (void)spec;
  } catch (const lg::Error&) {
  }
  return 0;
}
