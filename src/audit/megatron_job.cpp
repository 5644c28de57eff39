// read_megatron (megatron_words.hpp): the JobSpec of a Megatron-LM launch
// line, its locations moved onto the script, unknown keys marked.
#include "audit/megatron_words.hpp"

#include "config/megatron_args.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <charconv>

namespace lg::audit {

namespace {

// Stand-ins for model dimensions the script does not state: divisible by
// every usual parallel size, so rules anchored at known keys stay quiet; the
// keys themselves are listed as unknown.
const std::vector<std::pair<std::string, std::string>>& fillers()
{
  static const std::vector<std::pair<std::string, std::string>> k_fillers = {
    {"--num-layers", "model.num_layers"}, {"--hidden-size", "model.hidden_size"},
    {"--num-attention-heads", "model.num_attention_heads"}};
  return k_fillers;
}

const char* filler_value(const std::string& flag)
{
  return flag == "--num-layers" ? "5040" : flag == "--hidden-size" ? "61440" : "960";
}

struct Built
{
  std::vector<std::string> argv;
  std::vector<int> offsets;
  std::size_t real = 0;  // words before the fillers
};

Built build_argv(ScriptJob& job)
{
  Built out;
  ArgvReader reader;
  for (const auto& w : job.launch->args) {
    if (w.known) {
      reader.known(w);
    } else {
      reader.unknown(w);
    }
  }
  out.argv.push_back(job.launch->program->text());
  out.offsets.push_back(job.launch->program->offset);
  out.argv.insert(out.argv.end(), reader.argv.begin(), reader.argv.end());
  out.offsets.insert(out.offsets.end(), reader.offsets.begin(), reader.offsets.end());
  out.real = out.argv.size();
  job.args_opaque = reader.opaque;
  for (const auto& flag : reader.unknown_flags) {
    if (auto key = key_of_flag(flag)) {
      job.unknown.insert(*key);
    }
  }
  job.model_known = true;
  // Megatron-LM asserts one of the two (arguments.py, validate_args);
  // launchguard's default would otherwise stand in for the script's value.
  const bool has_seq = std::any_of(reader.argv.begin(), reader.argv.end(), [](const std::string& word) {
    return word == "--seq-length" || word.starts_with("--seq-length=") || word == "--encoder-seq-length"
           || word.starts_with("--encoder-seq-length=");
  });
  if (!has_seq) {
    job.unknown.insert("model.seq_length");
  }
  for (const auto& [flag, key] : fillers()) {
    bool present = false;
    for (const auto& word : reader.argv) {
      present = present || word == flag || word.starts_with(flag + "=");
    }
    if (!present) {
      out.argv.push_back(flag);
      out.argv.push_back(filler_value(flag));
      job.unknown.insert(key);
      job.model_known = false;
    }
  }
  return out;
}

void record_error(const lg::Error& error, const Built& built, ScriptJob& job)
{
  std::string message = error.what();
  int offset = built.offsets.front();
  constexpr std::string_view k_prefix = "command line:1:";
  if (message.starts_with(k_prefix)) {
    int word = 0;
    const char* begin = message.data() + k_prefix.size();
    const auto [end, ec] = std::from_chars(begin, message.data() + message.size(), word);
    if (ec == std::errc() && word >= 1 && static_cast<std::size_t>(word) <= built.real) {
      offset = built.offsets[static_cast<std::size_t>(word - 1)];
    } else if (ec == std::errc() && static_cast<std::size_t>(word) > built.real) {
      return;  // about a stand-in for an unknown value, not the script
    }
    message = std::string(end);
    if (message.starts_with(": ")) {
      message.erase(0, 2);
    }
  }
  job.args_error = std::make_pair(message, offset);
}

// Megatron-LM's default when --global-batch-size is absent: micro batch x
// data-parallel size (megatron/training/arguments.py, "global_batch_size is
// None" branch), so the rules see no gradient accumulation instead of 1.
void default_global_batch(const Built& built, ScriptJob& job)
{
  for (std::size_t i = 1; i < built.real; ++i) {
    if (built.argv[i] == "--global-batch-size" || built.argv[i].starts_with("--global-batch-size=")) {
      return;
    }
  }
  if (job.unknown.count("training.global_batch_size") != 0) {
    return;
  }
  const auto& p = job.spec.parallelism;
  const int model_size = p.tp * p.pp * p.cp;
  if (!job.cluster_known || model_size <= 0 || job.world % model_size != 0) {
    job.unknown.insert("training.global_batch_size");
    return;
  }
  job.spec.training.global_batch_size = job.spec.training.micro_batch_size * (job.world / model_size);
}

} // namespace

void read_megatron(const ScriptModel& model, const std::string& path, ScriptJob& job)
{
  const Built built = build_argv(job);
  config::MegatronArgsOptions options;
  options.gpu = job.spec.cluster.gpu;
  try {
    config::GpuSpec gpu = job.spec.cluster.gpu_info;
    job.spec = config::job_from_megatron_args(built.argv, options);
    job.spec.cluster.gpu_info = gpu;
  } catch (const lg::Error& error) {
    record_error(error, built, job);
    return;
  }
  job.megatron = true;
  read_world(job);
  default_global_batch(built, job);
  const SourceLocation unknown{k_unknown_file, 0, 0};
  std::map<std::string, SourceLocation> locations;
  for (const auto& [key, location] : job.spec.locations) {
    const auto word = static_cast<std::size_t>(location.column);
    const bool real = location.file == "command line" && word >= 1 && word <= built.real;
    locations[key] = real ? script_location(model, path, built.offsets[word - 1]) : unknown;
  }
  if (!job.args_opaque) {
    // An absent flag is Megatron-LM's default: known, placed on the program.
    for (const char* section : {"model", "parallelism", "training", "peft"}) {
      locations[section] = script_location(model, path, job.launch->program->offset);
    }
  }
  place_job(model, path, std::move(locations), job);
}

SourceLocation script_location(const ScriptModel& model, const std::string& path, int offset)
{
  const Position p = model.position(offset);
  return SourceLocation{path, p.line, p.column};
}

void read_world(ScriptJob& job)
{
  job.cluster_known = job.world > 0 && job.world_nodes > 0 && job.world % job.world_nodes == 0;
  if (job.cluster_known) {
    job.spec.cluster.nodes = job.world_nodes;
    job.spec.cluster.gpus_per_node = job.world / job.world_nodes;
  } else {
    job.unknown.insert("cluster");
  }
}

void place_job(const ScriptModel& model, const std::string& path, std::map<std::string, SourceLocation> locations,
               ScriptJob& job)
{
  const SourceLocation unknown{k_unknown_file, 0, 0};
  for (const auto& key : job.unknown) {
    locations[key] = unknown;
  }
  locations["cluster"] = job.cluster_known ? script_location(model, path, job.world_offset) : unknown;
  for (const auto& a : job.environment) {
    locations["env." + a.name] = script_location(model, path, a.offset);
    if (a.known && !a.value.empty()) {
      job.spec.env.emplace_back(a.name, a.value.front().text());
    }
  }
  job.spec.locations = std::move(locations);
  job.spec.source_file = k_unknown_file;
  job.spec.name = path;
}

} // namespace lg::audit
