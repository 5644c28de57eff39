#include "config/loader.hpp"

#include "config/hf_config.hpp"
#include "config/slurm_fields.hpp"
#include "config/toml_reader.hpp"
#include "util/edit_distance.hpp"
#include "util/error.hpp"
#include "util/input.hpp"
#include "util/toml_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace lg::config {

namespace fs = std::filesystem;

namespace {

toml::table parse_job_toml(std::string_view text, const std::string& display_name)
{
  return parse_toml_text(text, display_name, "check quoting, brackets and '=' on that line");
}

std::string read_file(const fs::path& path, std::string_view what = "job file")
{
  try {
    return lg::read_file(path.string(), what, k_max_job_bytes);
  } catch (InputError& error) {
    error.hint = "give the path of a job file, e.g. examples/llama3-70b-sft-h100.toml";
    throw;
  }
}

[[noreturn]] void throw_problems(std::vector<Problem> problems)
{
  // Report in file order (toml++ iterates keys sorted by name); problems from
  // a preset file come first, as they were read first.
  std::stable_sort(problems.begin(), problems.end(), [](const Problem& a, const Problem& b) {
    if (a.where.file != b.where.file) {
      return false;
    }
    return std::tie(a.where.line, a.where.column) < std::tie(b.where.line, b.where.column);
  });
  std::string text;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    const auto& p = problems[i];
    if (i > 0) {
      text += "\n";
    }
    // A finding on a whole JSON-line job has a line but no column.
    if (p.where.line > 0 && p.where.column > 0) {
      text += fmt::format("{}:{}:{}: {}", p.where.file, p.where.line, p.where.column, p.message);
    } else if (p.where.line > 0) {
      text += fmt::format("{}:{}: {}", p.where.file, p.where.line, p.message);
    } else {
      text += fmt::format("{}: {}", p.where.file, p.message);
    }
    if (i > 0 && !p.hint.empty()) {
      text += fmt::format(" ({})", p.hint);
    }
  }
  InputError error("{}", text);
  error.hint = problems.front().hint;
  throw error;
}

// Apply presets/models/<name>.toml: only its [model] tables are read.
void apply_model_preset(TomlReader& reader, const toml::node& preset_node, const LoadOptions& options)
{
  const auto* name = preset_node.as_string();
  if (name == nullptr) {
    return;  // the schema walk reports the type error
  }
  fs::path path;
  try {
    path = find_preset(options, "models", name->get());
  } catch (const InputError& e) {
    reader.report(preset_node, e.what(), e.hint);
    return;
  }
  const std::string text = read_file(path, "model preset");
  const toml::table table = parse_job_toml(text, path.string());
  const std::string job_file = reader.file();
  reader.set_file(path.string());
  std::vector<Section> model_only;
  for (const auto& section : job_schema()) {
    if (section.name == "model" || section.name.starts_with("model.")) {
      model_only.push_back(section);
    }
  }
  walk(reader, table, model_only, {"model.preset"});
  reader.set_file(job_file);
}

// [model] hf_config = "PATH": a Hugging Face config.json or model directory,
// relative to the job file. Read before the job's own keys, which override it.
void apply_job_hf_config(TomlReader& reader, const toml::node& node, const std::string& job_file)
{
  const auto* path = node.as_string();
  if (path == nullptr) {
    return;  // the schema walk reports the type error
  }
  fs::path hf = path->get();
  if (hf.is_relative()) {
    hf = fs::path(job_file).parent_path() / hf;
  }
  try {
    apply_hf_config(reader.spec(), hf);
  } catch (const InputError& e) {
    reader.report(node, e.what(), e.hint);
  }
}

void expand_layer_freq(ModelSpec& model)
{
  if (!model.moe || model.moe->layer_pattern.size() != 1 || model.moe->layer_pattern[0] >= 0) {
    return;
  }
  const int freq = -model.moe->layer_pattern[0];
  model.moe->layer_pattern.clear();
  if (freq == 1) {
    return;  // every layer is MoE
  }
  for (int i = 0; i < model.num_layers; ++i) {
    model.moe->layer_pattern.push_back(i % freq == 0 ? 1 : 0);
  }
}

void require_model_keys(std::vector<Problem>& problems, const JobSpec& spec)
{
  const auto where = spec.location_of("model").value_or(SourceLocation{spec.source_file, 1, 1});
  const std::vector<std::pair<const char*, std::int64_t>> required = {
    {"num_layers", spec.model.num_layers},
    {"hidden_size", spec.model.hidden_size},
    {"ffn_hidden_size", spec.model.ffn_hidden_size},
    {"num_attention_heads", spec.model.num_attention_heads},
    {"vocab_size", spec.model.vocab_size},
  };
  for (const auto& [key, value] : required) {
    if (value == 0) {
      problems.push_back({where, fmt::format("model.{} is required", key),
                          "set [model] preset = \"llama3-70b\" (see `launchguard presets`), hf_config = \"DIR\", or give every model key"});
    }
  }
  if (spec.model.moe) {
    const auto& moe = *spec.model.moe;
    if (moe.num_experts == 0 || moe.moe_ffn_hidden_size == 0) {
      problems.push_back({spec.location_of("model.moe").value_or(where),
                          "[model.moe] needs num_experts and moe_ffn_hidden_size",
                          "add num_experts = 8 and moe_ffn_hidden_size = … to [model.moe]"});
    } else if (!moe.layer_pattern.empty() && moe.layer_pattern.size() != static_cast<std::size_t>(spec.model.num_layers)) {
      problems.push_back({spec.location_of("model.moe.layer_freq").value_or(where),
                          fmt::format("model.moe.layer_freq has {} entries but the model has {} layers",
                                      moe.layer_pattern.size(), spec.model.num_layers),
                          "give one 0/1 entry per layer, or an integer frequency"});
    }
  }
}

} // namespace

fs::path find_preset(const LoadOptions& options, std::string_view kind, std::string_view name)
{
  if (name.find('/') != std::string_view::npos || name.find("..") != std::string_view::npos) {
    InputError error("preset name '{}' must be a plain name, not a path", name);
    error.hint = "put the file in a preset directory and use its name";
    throw error;
  }
  for (const auto& dir : options.preset_dirs) {
    const fs::path candidate = dir / kind / (std::string(name) + ".toml");
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) {
      return candidate;
    }
  }
  std::vector<std::string> names;
  for (const auto& [n, path] : list_presets(options, kind)) {
    names.push_back(n);
  }
  InputError error("unknown {} preset '{}'", kind == "gpus" ? "GPU" : "model", name);
  if (auto near = nearest(name, names)) {
    error.hint = fmt::format("did you mean '{}'?", *near);
  } else {
    error.hint = fmt::format("available: {}", fmt::join(names, ", "));
  }
  throw error;
}

std::vector<std::pair<std::string, fs::path>> list_presets(const LoadOptions& options, std::string_view kind)
{
  std::vector<std::pair<std::string, fs::path>> out;
  for (const auto& dir : options.preset_dirs) {
    std::error_code ec;
    for (fs::directory_iterator it(dir / kind, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() != ".toml") {
        continue;
      }
      const std::string name = it->path().stem().string();
      const bool seen = std::any_of(out.begin(), out.end(), [&](const auto& p) { return p.first == name; });
      if (!seen) {
        out.emplace_back(name, it->path());
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

GpuSpec load_gpu_preset(const fs::path& path)
{
  const std::string text = read_file(path, "GPU preset");
  const toml::table table = parse_job_toml(text, path.string());
  GpuSpec gpu;
  gpu.name = path.stem().string();
  JobSpec scratch;
  TomlReader reader(scratch, path.string());
  walk(reader, table, {gpu_schema(gpu)}, {});
  if (gpu.capacity_bytes <= 0) {
    reader.report_at({path.string(), 1, 1}, "gpu.capacity_bytes is required",
                     "write capacity_bytes = 85520809984 under [gpu]");
  }
  if (!reader.problems().empty()) {
    throw_problems(reader.problems());
  }
  return gpu;
}

void resolve_gpu(JobSpec& spec, const LoadOptions& options)
{
  try {
    spec.cluster.gpu_info = load_gpu_preset(find_preset(options, "gpus", spec.cluster.gpu));
  } catch (const InputError& e) {
    if (auto where = spec.location_of("cluster.gpu"); where && where->line > 0) {
      InputError located("{}:{}:{}: {}", where->file, where->line, where->column, e.what());
      located.hint = e.hint;
      throw located;
    }
    throw;
  }
}

JobSpec load_job_text(std::string_view text, const std::string& display_name, const LoadOptions& options)
{
  return load_job_table(parse_job_toml(text, display_name), display_name, options);
}

JobSpec load_job_table(const toml::table& table, const std::string& display_name, const LoadOptions& options, int line)
{
  JobSpec spec;
  spec.source_file = display_name;
  spec.source_line = line;
  TomlReader reader(spec, display_name);
  if (const auto* model = table["model"].as_table()) {
    if (const auto* preset = model->get("preset")) {
      apply_model_preset(reader, *preset, options);
    }
    if (const auto* hf = model->get("hf_config")) {
      apply_job_hf_config(reader, *hf, display_name);
    }
  }
  if (options.hf_config) {
    apply_hf_config(spec, *options.hf_config);
  }
  walk(reader, table, job_schema(), {});
  // toml++ iterates keys by name; the environment keeps the file's (or the
  // JSON object's) order.
  std::stable_sort(spec.env.begin(), spec.env.end(), [&](const auto& a, const auto& b) {
    const auto& la = spec.locations["env." + a.first];
    const auto& lb = spec.locations["env." + b.first];
    return std::tie(la.line, la.column) < std::tie(lb.line, lb.column);
  });
  if (!reader.problems().empty()) {
    throw_problems(reader.problems());
  }
  if (!options.defer_finish) {
    finish_job(spec, options);
  }
  return spec;
}

void finish_job(JobSpec& spec, const LoadOptions& options)
{
  expand_layer_freq(spec.model);
  std::vector<Problem> problems;
  require_model_keys(problems, spec);
  check_slurm_fields(problems, spec);
  if (!problems.empty()) {
    throw_problems(std::move(problems));
  }
  resolve_gpu(spec, options);
}

JobSpec load_job_file(const fs::path& path, const LoadOptions& options)
{
  return load_job_text(read_file(path), path.string(), options);
}

} // namespace lg::config
