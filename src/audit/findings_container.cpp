// pyxis options on srun lines: --container-env against the composed
// variables, and --container-mounts entries pyxis reads otherwise.
#include "audit/findings.hpp"

#include "env/policy.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include <set>
#include <string>
#include <vector>

namespace lg::audit::detail {

namespace {

void container_env(FindingContext& c)
{
  const Launch* l = c.job.launch;
  const LaunchStage* srun = l == nullptr ? nullptr : l->stage("srun");
  if (srun == nullptr || srun->find("container-image") == nullptr) {
    return;
  }
  std::set<std::string> listed;
  const LaunchOption* env_option = srun->find("container-env");
  if (env_option != nullptr && env_option->value) {
    std::string item;
    for (char ch : env_option->value->text() + ",") {
      if (ch == ',') {
        listed.insert(item);
        item.clear();
      } else {
        item += ch;
      }
    }
  }
  std::string missing;
  for (const auto& a : c.job.environment) {
    bool policy = false;
    for (const auto& row : env::policy_rows()) {
      policy = policy || a.name == row.name;
    }
    if ((policy || a.name == "PYTORCH_CUDA_ALLOC_CONF") && !a.prefix && listed.count(a.name) == 0) {
      missing += (missing.empty() ? "" : ",") + a.name;
    }
  }
  if (missing.empty()) {
    return;
  }
  auto& finding = c.add(Severity::advice, "audit.container_env",
                        fmt::format("the container may define {} itself, and pyxis keeps an image's value over the "
                                    "host's unless the name is in --container-env",
                                    missing),
                        fmt::format("add --container-env={}", missing), srun->find("container-image")->offset);
  if (env_option != nullptr && env_option->value && env_option->value->known
      && !env_option->value->value.offsets.empty() && env_option->value->value.offsets.back() >= 0) {
    const int end = env_option->value->value.offsets.back() + 1;
    finding.edits.push_back(Edit{end, end, "," + missing});
  }
}

// The --container-mounts values of one srun line, with their offsets: the
// option as srun's grammar read it, or a word spelled `--container-mounts=…`
// before the program (an option that came out of `$MOUNTS`).
std::vector<std::pair<std::string, int>> mount_values(const ScriptModel& m, const Launch& l)
{
  std::vector<std::pair<std::string, int>> out;
  const LaunchStage* srun = l.stage("srun");
  if (srun == nullptr) {
    return out;
  }
  if (const LaunchOption* o = srun->find("container-mounts"); o != nullptr && o->value) {
    out.emplace_back(o->value->text(), o->value->offset);
    return out;
  }
  const std::string spelled = "--container-mounts=";
  const int program_at = l.program ? l.program->offset : m.commands[static_cast<std::size_t>(l.command)].end;
  for (const auto& w : m.commands[static_cast<std::size_t>(l.command)].words) {
    if (w.offset >= 0 && w.offset < program_at && w.text().starts_with(spelled)) {
      out.emplace_back(w.text().substr(spelled.size()), w.offset);
    }
  }
  return out;
}

// `--container-mounts=/a:/data,/b:/result:/c:/models`: pyxis splits the value
// at ',' and reads each entry as SRC:DST[:FLAGS], everything after the second
// ':' being the flags ("ro+rprivate"; NVIDIA/pyxis args.c, parse_mount_option
// and the option's help "SRC:DST[:FLAGS][,SRC:DST...]"). A path there is a
// second mount whose ',' is missing: it is handed to enroot as mount flags and
// never mounted. Entries with a part the script cannot read are left alone.
void container_mounts(FindingContext& c)
{
  for (const auto& l : c.model.launches) {
    for (const auto& [value, offset] : mount_values(c.model, l)) {
      for (const auto& entry : lg::split(value, ',')) {
        if (entry.find_first_of("$`") != std::string::npos) {
          continue;
        }
        const auto fields = lg::split(entry, ':');
        if (fields.size() < 3) {
          continue;
        }
        const std::string flags = entry.substr(fields[0].size() + fields[1].size() + 2);
        if (flags.find('/') == std::string::npos) {
          continue;
        }
        c.add(Severity::error, "audit.container_mounts",
              fmt::format("--container-mounts entry `{}` has a path where its mount flags go: pyxis reads each "
                          "entry as SRC:DST[:FLAGS] and takes everything after the second ':' as flags, so `{}` is "
                          "not mounted (a ',' between two mounts is missing) and the container does not start or "
                          "lacks that path",
                          entry, flags),
              fmt::format("separate the mounts with ',': {}:{},{}", fields[0], fields[1], flags), offset);
      }
    }
  }
}

// `srun apptainer exec --cleanenv IMAGE torchrun …` (also singularity, -e,
// --containall/-C): the container starts with a clean environment, so the
// batch shell's exports do not reach the program. Apptainer's docs
// ("Environment and Metadata"): with --cleanenv "only the variables set by
// Apptainer" and those given with --env/--env-file or as
// APPTAINERENV_NAME/SINGULARITYENV_NAME reach the container; --containall
// implies --cleanenv. Round 21's Pawsey job lost its OMP_NUM_THREADS=8 that
// way (torchrun then sets 1). A warning for settings that change the run;
// one finding naming them all.
void clean_environment(FindingContext& c)
{
  const Launch* l = c.job.launch;
  const LaunchStage* box = l == nullptr ? nullptr : l->stage("apptainer");
  if (box == nullptr && l != nullptr) {
    box = l->stage("singularity");
  }
  if (box == nullptr || box->find("env-file") != nullptr || !c.job.environment_complete
      || (box->find("cleanenv") == nullptr && box->find("e") == nullptr && box->find("containall") == nullptr
          && box->find("C") == nullptr)) {
    return;
  }
  std::set<std::string> passed;
  for (const auto& o : box->options) {
    if ((o.name == "env" || o.name == "--env") && o.value) {
      if (!o.value->known) {
        return;  // an --env list that cannot be read may pass anything
      }
      for (const std::string& item : lg::split(o.value->text(), ',')) {
        passed.insert(item.substr(0, item.find('=')));
      }
    }
  }
  for (const auto& a : c.job.environment) {
    for (const char* prefix : {"APPTAINERENV_", "SINGULARITYENV_"}) {
      if (a.name.starts_with(prefix)) {
        passed.insert(a.name.substr(std::string_view(prefix).size()));
      }
    }
  }
  std::vector<std::string> lost;
  int first = -1;
  for (const auto& a : c.job.environment) {
    if (a.exported && !a.prefix && runtime_variable(a.name) && !a.name.starts_with("MASTER_") && passed.count(a.name) == 0
        && std::find(lost.begin(), lost.end(), a.name) == lost.end()) {
      lost.push_back(a.name);
      first = first < 0 ? a.offset : std::min(first, a.offset);
    }
  }
  if (lost.empty()) {
    return;
  }
  const std::string tool = box->tool;
  c.add(Severity::warning, "audit.container_cleanenv",
        fmt::format("`{} exec {}` starts the container with a clean environment: the exported {} {} not reach the "
                    "program, which runs with the image's defaults",
                    tool, box->find("cleanenv") != nullptr || box->find("e") != nullptr ? "--cleanenv" : "--containall",
                    fmt::join(lost, ", "), lost.size() > 1 ? "do" : "does"),
        fmt::format("pass them: `{} exec --cleanenv --env {}=… IMAGE …` (or export {}ENV_{}=…)", tool, lost.front(),
                    tool == "apptainer" ? "APPTAINER" : "SINGULARITY", lost.front()),
        first >= 0 ? first : box->offset);
}

}  // namespace

void container_findings(FindingContext& c)
{
  container_env(c);
  container_mounts(c);
  clean_environment(c);
}

}  // namespace lg::audit::detail
