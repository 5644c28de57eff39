#include "config/job_spec.hpp"

#include "util/error.hpp"

#include <algorithm>
#include <cctype>

namespace lg::config {

std::optional<SourceLocation> JobSpec::location_of(const std::string& key) const
{
  std::string probe = key;
  while (true) {
    if (auto it = locations.find(probe); it != locations.end()) {
      return it->second;
    }
    const auto dot = probe.rfind('.');
    if (dot == std::string::npos) {
      break;
    }
    probe.resize(dot);
  }
  if (!source_file.empty()) {
    return SourceLocation{source_file, source_line, 0};
  }
  return std::nullopt;
}

int world_size(const JobSpec& spec)
{
  return spec.cluster.nodes * spec.cluster.gpus_per_node;
}

int data_parallel_size(const JobSpec& spec)
{
  const auto& p = spec.parallelism;
  const int model = p.tp * p.pp * p.cp;
  const int world = world_size(spec);
  if (model <= 0 || world % model != 0) {
    return 0;
  }
  return world / model;
}

int expert_tensor_parallel_size(const JobSpec& spec)
{
  return spec.parallelism.etp.value_or(spec.parallelism.tp);
}

bool deepep_supported(const GpuSpec& gpu)
{
  const std::string_view name = gpu.display_name;
  return gpu.generation != GpuGeneration::blackwell || name.rfind("B200", 0) == 0 || name.rfind("B300", 0) == 0;
}

std::string flex_backend_of(const MoeSpec& moe)
{
  return moe.enable_deepep && moe.flex_backend != "hybridep" ? std::string("deepep") : moe.flex_backend;
}

bool runs_deepep(const MoeSpec& moe)
{
  return moe.token_dispatcher == "flex" && flex_backend_of(moe) == "deepep";
}

int expert_data_parallel_size(const JobSpec& spec)
{
  const auto& p = spec.parallelism;
  const int group = expert_tensor_parallel_size(spec) * p.ep * p.pp;
  const int world = world_size(spec);
  if (group <= 0 || world % group != 0) {
    return 0;
  }
  return world / group;
}

int num_microbatches(const JobSpec& spec)
{
  const int dp = data_parallel_size(spec);
  const int per_step = spec.training.micro_batch_size * dp;
  if (per_step <= 0 || spec.training.global_batch_size % per_step != 0) {
    return 0;
  }
  return spec.training.global_batch_size / per_step;
}

std::int64_t padded_vocab_size(const JobSpec& spec)
{
  const std::int64_t multiple = static_cast<std::int64_t>(spec.model.make_vocab_size_divisible_by)
                                * std::max(1, spec.parallelism.tp);
  if (multiple <= 0) {
    return spec.model.vocab_size;
  }
  return (spec.model.vocab_size + multiple - 1) / multiple * multiple;
}

int num_query_groups(const ModelSpec& model)
{
  return model.num_query_groups > 0 ? model.num_query_groups : model.num_attention_heads;
}

int kv_channels(const ModelSpec& model)
{
  if (model.kv_channels > 0) {
    return model.kv_channels;
  }
  return model.num_attention_heads > 0 ? model.hidden_size / model.num_attention_heads : 0;
}

bool is_moe_layer(const ModelSpec& model, int layer)
{
  if (!model.moe || model.moe->num_experts <= 0) {
    return false;
  }
  const auto& pattern = model.moe->layer_pattern;
  if (pattern.empty()) {
    return true;
  }
  if (layer < 0) {
    return false;
  }
  if (static_cast<std::size_t>(layer) >= pattern.size()) {
    // MTP layers take the type of the last layer.
    return pattern.back() != 0;
  }
  return pattern[static_cast<std::size_t>(layer)] != 0;
}

std::vector<std::string> recompute_modules(const RecomputeSpec& recompute)
{
  if (recompute.granularity != RecomputeGranularity::selective) {
    return {};
  }
  if (recompute.modules.empty()) {
    return {"core_attn"};
  }
  return recompute.modules;
}

bool recomputes_module(const RecomputeSpec& recompute, std::string_view module)
{
  // The same answer as searching recompute_modules(), without copying the list
  // (the estimator asks this per layer, tune per layout).
  if (recompute.granularity != RecomputeGranularity::selective) {
    return false;
  }
  if (recompute.modules.empty()) {
    return module == "core_attn";
  }
  return std::find(recompute.modules.begin(), recompute.modules.end(), module) != recompute.modules.end();
}

bool is_fp8(Precision precision)
{
  return precision == Precision::fp8_delayed || precision == Precision::fp8_cs
         || precision == Precision::fp8_blockwise || precision == Precision::mxfp8;
}

bool is_fp4(Precision precision)
{
  return precision == Precision::nvfp4;
}

namespace {

constexpr std::size_t k_max_layout_symbols = 1 << 20;  // saturate hostile repeat counts

// Read the repeat count after '*' at `pos`; advance `pos` past it.
std::size_t repeat_count(const std::string& text, std::size_t& pos, const std::string& layout)
{
  std::size_t begin = pos;
  std::size_t count = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])) != 0) {
    count = std::min<std::size_t>(count * 10 + static_cast<std::size_t>(text[pos] - '0'),
                                  k_max_layout_symbols);
    ++pos;
  }
  if (pos == begin) {
    InputError error("pipeline layout '{}': '*' must be followed by a count", layout);
    error.hint = "write e.g. \"Et*3|(tt|)*6L\"";
    throw error;
  }
  return count;
}

// Unroll `(group)*n` (Megatron: one level, no nesting) and then `x*n`.
std::string unroll_layout(const std::string& layout)
{
  std::string groups;
  for (std::size_t i = 0; i < layout.size();) {
    const char c = layout[i];
    if (c == ',' || c == ' ') {
      ++i;
      continue;
    }
    if (c != '(') {
      groups += c;
      ++i;
      continue;
    }
    const std::size_t close = layout.find(')', i);
    if (close == std::string::npos || layout.find('(', i + 1) < close || close + 1 >= layout.size()
        || layout[close + 1] != '*') {
      InputError error("pipeline layout '{}': a group '(…)' must be closed and followed by *count",
                       layout);
      error.hint = "write e.g. \"Et*3|(tt|)*6L\" (groups do not nest)";
      throw error;
    }
    std::size_t pos = close + 2;
    const std::size_t n = repeat_count(layout, pos, layout);
    const std::string body = layout.substr(i + 1, close - i - 1);
    for (std::size_t k = 0; k < n && groups.size() < k_max_layout_symbols; ++k) {
      groups += body;
    }
    i = pos;
  }
  std::string out;
  for (std::size_t i = 0; i < groups.size();) {
    const char c = groups[i++];
    if (i < groups.size() && groups[i] == '*' && c != '|') {
      std::size_t pos = i + 1;
      const std::size_t n = repeat_count(groups, pos, layout);
      out.append(std::min(n, k_max_layout_symbols), c);
      i = pos;
    } else {
      out += c;
    }
    if (out.size() > k_max_layout_symbols) {
      InputError error("pipeline layout '{}' unrolls to more than {} symbols", layout,
                       k_max_layout_symbols);
      throw error;
    }
  }
  return out;
}

} // namespace

std::vector<LayoutStage> parse_pipeline_layout(const std::string& layout)
{
  std::vector<LayoutStage> stages(1);
  for (const char c : unroll_layout(layout)) {
    switch (c) {
    case '|': stages.emplace_back(); break;
    case 't': ++stages.back().decoder_layers; break;
    case 'm': ++stages.back().mtp_layers; break;
    case 'E': stages.back().embedding = true; break;
    case 'L': stages.back().loss = true; break;
    default: {
      InputError error("pipeline layout '{}': unknown layer character '{}'", layout, c);
      error.hint = "Megatron's layout symbols are E (embedding), t (transformer layer), m (MTP), "
                   "L (loss), | (next stage), x*n and (…)*n";
      throw error;
    }
    }
  }
  return stages;
}

MoeSpec& ensure_moe(ModelSpec& model)
{
  if (!model.moe) {
    model.moe.emplace();
  }
  return *model.moe;
}

MlaSpec& ensure_mla(ModelSpec& model)
{
  if (!model.mla) {
    model.mla.emplace();
  }
  return *model.mla;
}

const char* to_string(Precision precision)
{
  switch (precision) {
  case Precision::bf16: return "bf16";
  case Precision::fp16: return "fp16";
  case Precision::fp8_delayed: return "fp8-delayed";
  case Precision::fp8_cs: return "fp8-cs";
  case Precision::fp8_blockwise: return "fp8-blockwise";
  case Precision::mxfp8: return "mxfp8";
  case Precision::nvfp4: return "nvfp4";
  }
  return "bf16";
}

const char* to_string(GpuGeneration generation)
{
  switch (generation) {
  case GpuGeneration::ampere: return "ampere";
  case GpuGeneration::hopper: return "hopper";
  case GpuGeneration::blackwell: return "blackwell";
  }
  return "hopper";
}

const char* to_string(RecomputeGranularity granularity)
{
  switch (granularity) {
  case RecomputeGranularity::none: return "none";
  case RecomputeGranularity::selective: return "selective";
  case RecomputeGranularity::full: return "full";
  }
  return "none";
}

const char* to_string(Fsdp fsdp)
{
  switch (fsdp) {
  case Fsdp::none: return "none";
  case Fsdp::megatron: return "megatron";
  case Fsdp::torch: return "torch";
  }
  return "none";
}

const char* to_string(CudaGraphs graphs)
{
  switch (graphs) {
  case CudaGraphs::none: return "none";
  case CudaGraphs::local: return "local";
  case CudaGraphs::transformer_engine: return "transformer_engine";
  case CudaGraphs::full_iteration: return "full_iteration";
  }
  return "none";
}

const char* to_string(Framework framework)
{
  switch (framework) {
  case Framework::megatron_bridge: return "megatron-bridge";
  case Framework::megatron_lm: return "megatron-lm";
  case Framework::nemo: return "nemo";
  }
  return "megatron-bridge";
}

} // namespace lg::config
