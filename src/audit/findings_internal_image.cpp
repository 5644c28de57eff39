// A container image from a registry only NVIDIA's own network reaches:
// nvcr.io's `nvidian` organisation is NVIDIA-internal ("That's an
// internal-only image": NVlabs/alpasim#44, `docker pull
// nvcr.io/nvidian/…` answered "denied: Access Denied"), and
// gitlab-master.nvidia.com is NVIDIA's internal GitLab and its registry (the
// images of Megatron-LM's internal CI). A public script that names one does
// not start anywhere else: pyxis/enroot, apptainer or docker fail to pull
// it. Held-out rounds 21, 22, 25, 26 (NeMo, BioNeMo and MegaMolBART jobs,
// one marked `# TODO update with public path`).
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <set>
#include <string>
#include <string_view>

namespace lg::audit::detail {

namespace {

// The image reference in `text` from an internal registry, or empty.
std::string internal_reference(const std::string& text)
{
  for (const std::string_view marker : {"nvcr.io/nvidian/", "nvcr.io#nvidian/", "gitlab-master.nvidia.com"}) {
    const auto at = text.find(marker);
    if (at == std::string::npos) {
      continue;
    }
    const auto end = text.find_first_of(" \t\n,\"'", at);
    return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
  }
  return {};
}

} // namespace

void internal_image_findings(FindingContext& c)
{
  std::set<std::string> reported;
  auto judge = [&](const Word& w) {
    if (!w.known || w.offset < 0) {
      return;
    }
    const std::string reference = internal_reference(w.text());
    if (reference.empty() || !reported.insert(reference).second) {
      return;
    }
    const bool ngc = reference.find("nvidian") != std::string::npos;
    const int first = !w.value.offsets.empty() && w.value.offsets.front() >= 0 ? w.value.offsets.front() : w.offset;
    c.add(Severity::warning, "audit.internal_image",
          fmt::format("{} is in {}: only NVIDIA's own network can pull it, so outside it the container never "
                      "starts",
                      reference,
                      ngc ? "nvcr.io's `nvidian` organisation, NVIDIA-internal (a pull answers \"Access Denied\")"
                          : "gitlab-master.nvidia.com, NVIDIA's internal GitLab registry"),
          "use a public image (nvcr.io/nvidia/…, such as nvcr.io/nvidia/nemo or nvcr.io/nvidia/pytorch) or one "
          "your site mirrors",
          first);
  };
  for (const auto& a : c.model.assignments) {
    for (const auto& w : a.value) {
      judge(w);
    }
  }
  for (const auto& command : c.model.commands) {
    if (!command.words.empty() && command.words.front().known
        && (command.words.front().text() == "echo" || command.words.front().text() == "printf")) {
      continue;
    }
    for (const auto& w : command.words) {
      judge(w);
    }
  }
}

} // namespace lg::audit::detail
