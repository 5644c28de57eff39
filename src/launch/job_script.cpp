#include "launch/job_script.hpp"

#include "preflight/judge.hpp"
#include "render/render.hpp"
#include "util/error.hpp"
#include "util/input.hpp"
#include "util/strings.hpp"


namespace lg::launch {

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

fs::path resolve_template(const config::JobSpec& spec, const std::vector<fs::path>& template_dirs)
{
  const std::string& name = spec.launch.template_name;
  const bool is_path = name.find('/') != std::string::npos || (name.size() > 9 && name.ends_with(".mustache"));
  if (!is_path) {
    const std::string file = name + ".sbatch.mustache";
    std::vector<std::string> searched;
    for (const auto& dir : template_dirs) {
      std::error_code ec;
      if (fs::is_regular_file(dir / file, ec)) {
        return dir / file;
      }
      searched.push_back(dir.string());
    }
    InputError error("[launch] template \"{}\": no {} found", name, file);
    error.hint = "searched " + join(searched, ", ") + "; shipped templates are srun-native and torchrun, or give a path";
    throw error;
  }
  fs::path path(name);
  if (path.is_relative() && !spec.source_file.empty()) {
    path = fs::path(spec.source_file).parent_path() / path;
  }
  return path;
}

std::string render_job_script(const config::JobSpec& spec, const env::Environment& environment,
                              const std::vector<fs::path>& template_dirs)
{
  // A Megatron-LM job's launch line is written from the job (render); a
  // Bridge job's is its own command, which nothing else can supply.
  if (spec.launch.command.empty() && spec.launch.framework != config::Framework::megatron_lm) {
    InputError error("launch.command is empty: a Megatron Bridge job runs its recipe script, and launchguard "
                     "ships no recipe");
    error.hint = "set [launch] command = [\"python\", \"scripts/training/run_recipe.py\", \"--recipe\", \"…\"] "
                 "(or give the recipe command line after `--`), or framework = \"megatron-lm\" to run "
                 "pretrain_gpt.py with the job's flags";
    throw error;
  }
  return render::render_sbatch(spec, environment, read_template(resolve_template(spec, template_dirs)));
}

std::string render_job_script(const config::JobSpec& spec, const std::vector<fs::path>& template_dirs)
{
  preflight::Options options;
  options.with_estimate = false;
  return render_job_script(spec, preflight::judge(spec, options).environment, template_dirs);
}

} // namespace lg::launch
