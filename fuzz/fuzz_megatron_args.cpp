// libFuzzer target: a Megatron-LM command line -> JobSpec, then the whole
// preflight on it (environment, estimate, rules), as `launchguard check -- …`
// does. The input is split into argv words on NUL and whitespace. The reader
// has no schema ranges of its own, so this also feeds the estimator and the
// rules odd values: any crash, UB, hang or huge allocation there is a bug.
#include "config/loader.hpp"
#include "config/megatron_args.hpp"
#include "env/compose.hpp"
#include "estimate/estimate.hpp"
#include "rules/rules.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

std::vector<std::string> split_words(const std::uint8_t* data, std::size_t size)
{
  std::vector<std::string> words;
  std::string word;
  for (std::size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (!word.empty()) {
        words.push_back(std::move(word));
        word.clear();
      }
    } else {
      word += c;
    }
  }
  if (!word.empty()) {
    words.push_back(std::move(word));
  }
  return words;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  static const lg::config::LoadOptions options = [] {
    lg::config::LoadOptions o;
    o.preset_dirs.emplace_back(LG_SOURCE_DIR "/presets");
    return o;
  }();
  const std::vector<std::string> argv = split_words(data, size);
  lg::config::JobSpec spec;
  try {
    spec = lg::config::job_from_megatron_args(argv, {});
    lg::config::resolve_gpu(spec, options);
  } catch (const lg::Error&) {
    return 0;
  }
  const lg::env::Environment environment = lg::env::compose(spec, {});
  lg::estimate::Options estimate_options;
  estimate_options.expandable_segments = lg::env::has_expandable_segments(environment);
  const lg::estimate::Estimate estimate = lg::estimate::estimate(spec, estimate_options);
  const auto findings = lg::rules::check(spec, estimate);
  (void)findings;
  return 0;
}
