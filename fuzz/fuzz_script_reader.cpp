// libFuzzer target: arbitrary text -> read_script -> the whole audit
// (job, rules, env, hygiene) -> --fix -> diff, as `launchguard audit --fix=diff`
// does. Any crash, UB, hang or huge allocation is a bug; the reader promises
// linear time on any input. The first byte switches template mode.
#include "audit/audit.hpp"
#include "audit/fix.hpp"
#include "audit/script_reader.hpp"
#include "config/loader.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

lg::audit::AuditOptions make_options()
{
  lg::audit::AuditOptions options;
  try {
    lg::config::LoadOptions load;
    load.preset_dirs = {std::string(LG_SOURCE_DIR) + "/presets"};
    lg::config::JobSpec probe;
    lg::config::resolve_gpu(probe, load);
    options.gpu = probe.cluster.gpu_info;
  } catch (const std::exception&) {
  }
  options.directory_exists = [](const std::string& dir) { return dir.size() % 2 == 0; };
  return options;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  static const lg::audit::AuditOptions k_options = make_options();
  if (size == 0) {
    return 0;
  }
  lg::audit::AuditOptions options = k_options;
  options.template_mode = (data[0] & 1U) != 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const lg::audit::AuditResult result = lg::audit::audit_text(text, "fuzz.sbatch", options);
  const std::string fixed = lg::audit::apply_fixes(text, result.findings);
  (void)lg::audit::unified_diff(text, fixed, "fuzz.sbatch");
  return 0;
}
