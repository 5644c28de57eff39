// Filling the template context. Nothing the user wrote reaches a template
// unquoted: script values go through script_quote, #SBATCH values through
// directive_quote, the job name through sanitize_job_name; numbers and enum
// names are formatted here.
#include "render/context.hpp"

#include "config/megatron_launch.hpp"
#include "render/render.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <fmt/core.h>

namespace lg::render {

namespace {

constexpr const char* k_master_port = "29500";

std::string quote_words(const std::vector<std::string>& words)
{
  std::vector<std::string> quoted;
  quoted.reserve(words.size());
  for (std::size_t i = 0; i < words.size(); ++i) {
    quoted.push_back(i == 0 ? quote_command_word(words[i]) : script_quote(words[i]));
  }
  return join(quoted, " ");
}

// An optional #SBATCH value: sets has_<key> and, when present, <key>_d.
void optional_directive(Object& ctx, const std::string& key, const char* field,
                        const std::string& value)
{
  ctx.insert_or_assign("has_" + key, !value.empty());
  ctx.insert_or_assign(key + "_d", value.empty() ? std::string() : directive_quote(field, value));
}

void add_slurm(Object& ctx, const config::JobSpec& spec)
{
  ctx.insert_or_assign("job_name_d", sanitize_job_name(spec.name));
  ctx.insert_or_assign("job_name_q", script_quote(spec.name));
  ctx.insert_or_assign("nodes", std::to_string(spec.cluster.nodes));
  ctx.insert_or_assign("gpus_per_node", std::to_string(spec.cluster.gpus_per_node));
  ctx.insert_or_assign("world_size", std::to_string(config::world_size(spec)));
  ctx.insert_or_assign("time_d", directive_quote("slurm.time", spec.slurm.time));
  optional_directive(ctx, "partition", "slurm.partition", spec.slurm.partition);
  optional_directive(ctx, "account", "slurm.account", spec.slurm.account);
  optional_directive(ctx, "qos", "slurm.qos", spec.slurm.qos);
  optional_directive(ctx, "mem", "slurm.mem", spec.slurm.mem);
  optional_directive(ctx, "signal", "slurm.signal", spec.slurm.signal);
  ctx.insert_or_assign("output_d", directive_quote("launch.output", spec.launch.output));
  std::vector<Object> extra;
  for (const auto& arg : spec.slurm.extra_args) {
    extra.push_back(Object{{"arg_d", directive_quote("slurm.extra_args", arg)}});
  }
  ctx.insert_or_assign("sbatch_extra", extra);
}

void add_environment(Object& ctx, const env::Environment& environment)
{
  std::vector<Object> list;
  std::vector<std::string> exported;
  for (const auto& v : environment.variables) {
    if (!env::is_valid_name(v.name)) {
      throw InputError("environment variable name \"{}\" is not a shell name", v.name);
    }
    const bool set = v.action == env::Action::set;
    list.push_back(Object{{"name", v.name},
                          {"value_q", !set        ? std::string()
                                      : v.per_job ? script_quote_per_job(v.value)
                                                  : script_quote(v.value)},
                          {"is_set", set},
                          {"is_unset", !set},
                          {"layer", env::to_string(v.layer)}});
    if (set) {
      exported.push_back(v.name);
    }
  }
  ctx.insert_or_assign("env", list);
  ctx.insert_or_assign("has_env_exports", !exported.empty());
  ctx.insert_or_assign("container_env_q", script_quote(join(exported, ",")));
}

void add_container(Object& ctx, const config::LaunchSpec& launch)
{
  const bool container = !launch.container_image.empty();
  ctx.insert_or_assign("has_container", container);
  ctx.insert_or_assign("container_image_q", script_quote(launch.container_image));
  for (const auto& mount : launch.container_mounts) {
    if (mount.find(',') != std::string::npos) {
      InputError error("launch.container_mounts: \"{}\" contains a comma; pyxis splits "
                       "--container-mounts at commas",
                       mount);
      error.hint = "mount a parent directory whose path has no comma";
      throw error;
    }
  }
  ctx.insert_or_assign("has_container_mounts", !launch.container_mounts.empty());
  ctx.insert_or_assign("container_mounts_q", script_quote(join(launch.container_mounts, ",")));
}

bool is_python(std::string_view word)
{
  const auto slash = word.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? word : word.substr(slash + 1);
  return base.rfind("python", 0) == 0
         && base.find_first_not_of("python0123456789.") == std::string_view::npos;
}

void add_command(Object& ctx, const std::vector<std::string>& command)
{
  ctx.insert_or_assign("command_q", quote_words(command));
  // Split at the Python interpreter: "uv run python" | "train.py --x".
  std::size_t split_at = 0;
  for (std::size_t i = 0; i < command.size(); ++i) {
    if (is_python(command[i])) {
      split_at = i + 1;
      break;
    }
  }
  const std::vector<std::string> prefix(command.begin(), command.begin() + static_cast<long>(split_at));
  const std::vector<std::string> program(command.begin() + static_cast<long>(split_at), command.end());
  ctx.insert_or_assign("python_q", prefix.empty() ? std::string("python") : quote_words(prefix));
  std::vector<std::string> quoted;
  for (const auto& word : program) {
    quoted.push_back(script_quote(word));
  }
  ctx.insert_or_assign("program_q", join(quoted, " "));
}

// The launch line's words: a Megatron-LM job's settings are written from the
// job (config/megatron_launch.hpp), so a job read from a Hugging Face config or
// a Bridge YAML runs what was judged; any other job runs its own command.
std::vector<std::string> command_on_launch_line(const config::JobSpec& spec)
{
  if (spec.launch.framework == config::Framework::megatron_lm) {
    return config::megatron_launch_command(spec);
  }
  return spec.launch.command;
}

} // namespace

std::string quote_command_word(std::string_view word)
{
  std::string quoted = script_quote(word);
  if (quoted == word && (word.find('=') != std::string_view::npos || word.front() == '%')) {
    return "'" + quoted + "'";
  }
  return quoted;
}

Object build_context(const config::JobSpec& spec, const env::Environment& environment)
{
  Object ctx;
  add_slurm(ctx, spec);
  ctx.insert_or_assign("workdir_q", script_quote(spec.launch.workdir));
  ctx.insert_or_assign("framework", config::to_string(spec.launch.framework));
  ctx.insert_or_assign("master_port", k_master_port);
  add_environment(ctx, environment);
  add_container(ctx, spec.launch);
  add_command(ctx, command_on_launch_line(spec));
  return ctx;
}

} // namespace lg::render
