#include "cli/job_script.hpp"

#include "cli/data_paths.hpp"
#include "env/compose.hpp"
#include "render/render.hpp"
#include "util/error.hpp"
#include "util/input.hpp"
#include "util/strings.hpp"


namespace lg::cli {

namespace fs = std::filesystem;

namespace {

std::string read_template(const fs::path& path)
{
  try {
    return read_file(path.string(), "template", k_max_script_bytes);
  } catch (InputError& error) {
    error.hint = "[launch] template is a shipped name (srun-native, torchrun) or a path";
    throw;
  }
}

} // namespace

// `[launch] template`: a path when it has a '/' or ends in ".mustache"
// (relative to the job file's directory), else a shipped or user template name.
fs::path resolve_template(const config::JobSpec& spec)
{
  const std::string& name = spec.launch.template_name;
  const bool is_path = name.find('/') != std::string::npos
                       || (name.size() > 9 && name.ends_with(".mustache"));
  if (!is_path) {
    const std::string file = name + ".sbatch.mustache";
    fs::path found = find_data_file("templates", file);
    if (found.empty()) {
      std::vector<std::string> searched;
      for (const auto& root : data_dirs()) {
        searched.push_back((root / "templates").string());
      }
      InputError error("[launch] template \"{}\": no {} found", name, file);
      error.hint = "searched " + join(searched, ", ")
                   + "; shipped templates are srun-native and torchrun, or give a path";
      throw error;
    }
    return found;
  }
  fs::path path(name);
  if (path.is_relative() && !spec.source_file.empty()) {
    path = fs::path(spec.source_file).parent_path() / path;
  }
  return path;
}

std::string render_job_script(const config::JobSpec& spec, const env::Environment& environment)
{
  return render::render_sbatch(spec, environment, read_template(resolve_template(spec)));
}

std::string render_job_script(const config::JobSpec& spec)
{
  return render_job_script(spec, env::compose(spec, {}));
}

} // namespace lg::cli
