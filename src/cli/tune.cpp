// `launchguard tune`: the parallelism layout search. Builds the job (a job
// file, whose settings are kept unless --free names them, or --model/--gpu/
// --gpus), runs tune::search, prints the top-K table and the memory vs
// throughput Pareto front (or --json), and with --write-job writes the chosen
// layout as a job file that `check` passes.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_input.hpp"
#include "cli/output.hpp"
#include "cli/throughput_output.hpp"
#include "config/job_writer.hpp"
#include "config/loader.hpp"
#include "preflight/judge.hpp"
#include "throughput/coverage.hpp"
#include "throughput/systems.hpp"
#include "tune/search.hpp"
#include "util/atomic_file.hpp"
#include "util/bytes.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>

namespace lg::cli {
namespace {

namespace po = boost::program_options;

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

std::vector<std::string> split_list(const std::string& text)
{
  std::vector<std::string> out;
  std::string item;
  for (const char c : text + ",") {
    if (c == ',') {
      if (!item.empty()) {
        out.push_back(item);
      }
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
  }
  return out;
}

std::string precision_word(std::string word)
{
  std::replace(word.begin(), word.end(), '_', '-');
  return word;
}

// The job of `tune --model …` or `tune --hf-config …`: a generated job file
// read by the ordinary job loader, so presets, Bridge inputs and every check
// apply (the Hugging Face config comes in as --hf-config, under the file).
JobSource model_job(const ParsedArgs& parsed)
{
  const auto& v = parsed.vars;
  const bool preset = v.count("model") != 0;
  if (v.count("gpu") == 0 || v.count("gpus") == 0) {
    UsageError error("tune: --{} needs --gpu and --gpus", preset ? "model" : "hf-config");
    error.hint = "e.g. launchguard tune --model llama3-70b --gpu h100-80gb --gpus 64";
    throw error;
  }
  const std::string model = preset ? v["model"].as<std::string>() : "hf";
  const std::string gpu = v["gpu"].as<std::string>();
  const config::LoadOptions options = load_options(parsed);
  const config::GpuSpec gpu_info = config::load_gpu_preset(config::find_preset(options, "gpus", gpu));
  const int gpus = v["gpus"].as<int>();
  int per_node = v.count("gpus-per-node") != 0 ? v["gpus-per-node"].as<int>()
                                                : (gpu_info.nvlink_domain > 8 ? 4 : 8);
  per_node = std::min(per_node, gpus);
  if (gpus < 1 || per_node < 1 || gpus % per_node != 0) {
    UsageError error("tune: --gpus {} is not a multiple of {} GPUs per node", gpus, per_node);
    error.hint = "give --gpus as a whole number of nodes, or set --gpus-per-node";
    throw error;
  }
  std::string text = fmt::format("[job]\nname = {}\n[model]\n", config::toml_string("tune-" + model));
  if (preset) {
    text += fmt::format("preset = {}\n", config::toml_string(model));
  }
  if (v.count("seq") != 0) {
    text += fmt::format("seq_length = {}\n", v["seq"].as<int>());
  }
  text += "[training]\n";
  if (v.count("gbs") != 0) {
    text += fmt::format("global_batch_size = {}\n", v["gbs"].as<int>());
  } else {
    text += fmt::format("global_batch_size = {}\n", std::max(gpus, 256));
  }
  text += fmt::format("precision = {}\n",
                      config::toml_string(precision_word(v.count("precision") != 0 ? v["precision"].as<std::string>()
                                                                                   : "bf16")));
  const std::string task = v.count("task") != 0 ? v["task"].as<std::string>() : "pretrain";
  if (task == "lora") {
    text += "[peft]\nmethod = \"lora\"\n";
  } else if (task != "pretrain" && task != "sft") {
    UsageError error("tune: --task must be pretrain, sft or lora, got '{}'", task);
    throw error;
  }
  text += fmt::format("[cluster]\ngpu = {}\nnodes = {}\ngpus_per_node = {}\n", config::toml_string(gpu),
                      gpus / per_node, per_node);
  JobSource source;
  source.toml_text = text;
  source.display = preset ? "tune --model" : "tune --hf-config";
  return source;
}

// Command-line values over a job file's: they count as set, so they are kept.
void apply_overrides(const ParsedArgs& parsed, config::JobSpec& spec)
{
  const auto& v = parsed.vars;
  const SourceLocation here{"command line", 0, 0};
  if (v.count("gpus") != 0) {
    const int gpus = v["gpus"].as<int>();
    if (gpus < 1 || gpus % spec.cluster.gpus_per_node != 0) {
      UsageError error("tune: --gpus {} is not a multiple of {} GPUs per node", gpus, spec.cluster.gpus_per_node);
      throw error;
    }
    spec.cluster.nodes = gpus / spec.cluster.gpus_per_node;
  }
  if (v.count("seq") != 0) {
    spec.model.seq_length = v["seq"].as<int>();
  }
  if (v.count("gbs") != 0) {
    spec.training.global_batch_size = v["gbs"].as<int>();
  }
  if (v.count("precision") != 0 || v.count("task") != 0) {
    UsageError error("tune: --precision and --task go with --model or --hf-config; a job sets them itself");
    error.hint = "edit [training] precision / [peft] method in the job file (or mixed_precision / peft in Bridge inputs)";
    throw error;
  }
  (void)here;
}

nlohmann::json layout_json(const tune::Layout& l, const tune::RecomputeChoice& r)
{
  nlohmann::json recompute = {{"granularity", config::to_string(r.granularity)}};
  if (r.granularity == config::RecomputeGranularity::selective) {
    config::RecomputeSpec spec;
    spec.granularity = r.granularity;
    spec.modules = r.modules;
    recompute["modules"] = config::recompute_modules(spec);
  } else if (r.granularity == config::RecomputeGranularity::full) {
    recompute["method"] = r.method == config::RecomputeMethod::uniform ? "uniform" : "block";
    recompute["num_layers"] = r.num_layers;
  }
  return {{"tp", l.tp},
          {"pp", l.pp},
          {"vpp", l.vpp > 1 ? nlohmann::json(l.vpp) : nlohmann::json(nullptr)},
          {"cp", l.cp},
          {"account_for_embedding_in_pipeline_split", l.account_embedding},
          {"account_for_loss_in_pipeline_split", l.account_loss},
          {"ep", l.ep},
          {"etp", l.etp},
          {"micro_batch_size", l.micro_batch_size},
          {"sequence_parallel", l.sequence_parallel},
          {"recompute", recompute},
          {"distributed_optimizer", l.distributed_optimizer},
          {"fsdp", l.fsdp ? "megatron" : "none"},
          {"cpu_offloading_layers", l.cpu_offloading_layers},
          {"deepep", l.deepep}};
}

nlohmann::json candidate_json(const tune::Result& result, const tune::Candidate& c, std::size_t rank)
{
  auto bytes = [](double value) { return static_cast<std::int64_t>(std::llround(value)); };
  nlohmann::json stages = nlohmann::json::array();
  for (double peak : c.stage_peaks) {
    stages.push_back(bytes(peak));
  }
  return {{"rank", rank},
          {"layout", layout_json(c.layout, result.recompute_choices.at(static_cast<std::size_t>(c.layout.recompute)))},
          {"peak_bytes", bytes(c.peak_bytes)},
          {"band_bytes", bytes(c.band_bytes)},
          {"stage_peak_bytes", stages},
          {"verdict", estimate::to_string(c.verdict)},
          {"throughput", to_json(c.throughput)},
          {"relative", std::round(c.relative * 1000) / 1000},
          {"main_cost", c.throughput.main_cost},
          {"costs", costs_json(c.throughput)},
          {"pareto", c.pareto}};
}

// The fastest layout pruned by the headroom (null when none): a candidate
// without rank, relative and pareto, which belong to the ranking.
nlohmann::json over_headroom_json(const tune::Result& result)
{
  if (!result.fastest_over_headroom) {
    return nullptr;
  }
  nlohmann::json j = candidate_json(result, *result.fastest_over_headroom, 0);
  j.erase("rank");
  j.erase("relative");
  j.erase("pareto");
  return j;
}

std::string stage_peaks(const tune::Candidate& c)
{
  if (c.stage_peaks.empty()) {
    return "";
  }
  const auto [lo, hi] = std::minmax_element(c.stage_peaks.begin(), c.stage_peaks.end());
  if (c.stage_peaks.size() == 1) {
    return fmt::format("{:.1f}", *hi / k_gib);
  }
  return fmt::format("{:.1f}..{:.1f} ({})", *lo / k_gib, *hi / k_gib, c.stage_peaks.size());
}

std::string layout_text(const tune::Result& result, const tune::Candidate& c)
{
  return tune::describe(c.layout, result.recompute_choices)
         + (c.verdict == estimate::Verdict::borderline ? " (borderline)" : "");
}

// The table's column widths: the rank (the Pareto front's ranks can run to the
// candidate count) and the layout, at least their headers'.
struct Widths
{
  int rank = 4;
  int layout = 52;
};

void print_row(const tune::Result& result, const tune::Candidate& c, std::size_t rank, const Widths& w)
{
  const double share = c.throughput.step_time_s > 0
                           ? 100 * throughput::cost(c.throughput, c.throughput.main_cost) / c.throughput.step_time_s
                           : 0;
  fmt::print("{:>{}}  {:<{}} {:>18} {:>7.1f} {:>7.0f} {:>9.0f} {:>6.1f}%  {} {:.0f}%\n", rank, w.rank,
             layout_text(result, c), w.layout, stage_peaks(c), c.band_bytes / k_gib, c.throughput.tflops_per_gpu,
             c.throughput.tokens_per_sec_per_gpu, 100 * c.relative, c.throughput.main_cost, share);
}

// What the throughput calibration does not cover for the problem: its GPU,
// precision and kind, the same for every layout.
std::vector<std::string> caveats_of(const config::JobSpec& spec)
{
  return throughput::coverage_caveats(spec, throughput::system_rates(spec.cluster.gpu_info));
}

void print_text(const GlobalOptions& global, const config::JobSpec& spec, const tune::Request& request,
                const tune::Result& result, std::size_t top)
{
  fmt::print("{}: {} on {} x {}, seq {}, GBS {}, {}\n", spec.name,
             spec.model.preset.empty() ? "model" : spec.model.preset, config::world_size(spec),
             spec.cluster.gpu_info.display_name, spec.model.seq_length, spec.training.global_batch_size,
             config::to_string(spec.training.precision));
  const double kept_percent = 100 * (1 - request.headroom);
  fmt::print("searched {} layouts: {} pruned by rules, {} pruned by memory (peak + band above {:.0f}% of {}), "
             "{} candidates\n\n",
             result.searched, result.pruned_by_rules, result.pruned_by_memory, kept_percent,
             format_bytes(result.capacity_bytes), result.candidates.size());
  if (result.borderline > 0) {
    fmt::print("{} of the candidates are borderline in memory (flagged): the band's upper edge is above the 90% "
               "that check's verdict allows\n\n",
               result.borderline);
  }
  if (result.candidates.empty()) {
    fmt::print("{}\n", colorize(global.color, "red", "no layout fits and passes the rules"));
    return;
  }
  // One set of widths for both tables.
  Widths widths;
  widths.rank = std::max<int>(widths.rank, static_cast<int>(std::to_string(result.candidates.size()).size()));
  for (std::size_t i = 0; i < result.candidates.size(); ++i) {
    if (i < top || result.candidates[i].pareto) {
      widths.layout = std::max<int>(widths.layout, static_cast<int>(layout_text(result, result.candidates[i]).size()));
    }
  }
  fmt::print("{}\n",
             colorize(global.color, "bold",
                      fmt::format("{:>{}}  {:<{}} {:>18} {:>7} {:>7} {:>9} {:>7}  {}", "rank", widths.rank, "layout",
                                  widths.layout, "peak/stage GiB", "band", "TFLOP/s", "tokens/s", "vs best",
                                  "main cost")));
  for (std::size_t i = 0; i < std::min(top, result.candidates.size()); ++i) {
    print_row(result, result.candidates[i], i + 1, widths);
  }
  fmt::print("\nmemory vs throughput (Pareto front, lightest first):\n");
  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < result.candidates.size(); ++i) {
    if (result.candidates[i].pareto) {
      front.push_back(i);
    }
  }
  std::sort(front.begin(), front.end(), [&](std::size_t a, std::size_t b) {
    return result.candidates[a].band_bytes < result.candidates[b].band_bytes;
  });
  // Condensed: a front point is shown when it is at least 2% faster than the
  // last one shown (--json lists them all).
  double shown = -1;
  for (std::size_t i : front) {
    const double speed = result.candidates[i].throughput.tokens_per_sec_per_gpu;
    if (shown < 0 || speed >= 1.02 * shown || i == 0) {
      print_row(result, result.candidates[i], i + 1, widths);
      shown = speed;
    }
  }
  fmt::print("\npredicted rates: model in docs/tune.md; peaks from the memory estimate (peak + band at most "
             "{:.0f}% of capacity); predictions within {:.0f}% of each other are ties, ranked simpler layout first\n",
             kept_percent, 100 * tune::k_resolution);
  for (const auto& caveat : caveats_of(spec)) {
    fmt::print("  not calibrated: {}\n", caveat);
  }
}

// The fastest layout the headroom pruned, when it is faster than rank 1 by
// more than the model's resolution (or nothing survived): tuned runs sit near
// capacity, so say what the headroom costs and how to rank such layouts.
void print_over_headroom(const tune::Result& result, double headroom)
{
  if (!result.fastest_over_headroom) {
    return;
  }
  const tune::Candidate& c = *result.fastest_over_headroom;
  const double best = result.candidates.empty() ? 0 : result.candidates.front().throughput.tokens_per_sec_per_gpu;
  if (best > 0 && c.throughput.tokens_per_sec_per_gpu <= best * (1 + tune::k_resolution)) {
    return;
  }
  const std::string faster =
    best > 0 ? fmt::format("{:.0f}% faster than rank 1", 100 * (c.throughput.tokens_per_sec_per_gpu / best - 1))
             : std::string("the fastest");
  fmt::print("\n{} layouts fit within the capacity but not within the {:.0f}% headroom (the band's upper edge above "
             "it); the fastest of them, {}, is predicted {} (peak {:.1f} GiB, upper edge {:.1f} GiB of {:.1f}): "
             "--borderline or --headroom PCT ranks such layouts, flagged\n",
             result.over_headroom, 100 * headroom, tune::describe(c.layout, result.recompute_choices), faster,
             c.peak_bytes / k_gib, c.band_bytes / k_gib, result.capacity_bytes / k_gib);
}

} // namespace

int run_tune(const GlobalOptions& global, const std::vector<std::string>& args)
{
  po::options_description options("tune options");
  add_job_options(options);
  options.add_options()
    ("model", po::value<std::string>(), "model preset to tune (instead of a job file)")
    ("gpus", po::value<int>(), "total number of GPUs")
    ("seq", po::value<int>(), "sequence length")
    ("gbs", po::value<int>(), "global batch size")
    ("task", po::value<std::string>(), "pretrain (default), sft or lora (with --model)")
    ("precision", po::value<std::string>(), "bf16 (default), fp8-cs, mxfp8, nvfp4, … (with --model)")
    ("top", po::value<int>()->default_value(5), "rows of the ranked table")
    ("free", po::value<std::string>(), "with a job file: dimensions that may change although the job sets "
                                        "them (tp,pp,vpp,cp,ep,etp,mbs,sp,recompute,distributed_optimizer,"
                                        "fsdp,offload,dispatcher or all)")
    ("write-job", po::value<std::string>(), "write the chosen layout as a job file")
    ("pick", po::value<int>()->default_value(1), "rank written by --write-job")
    ("force", "overwrite the --write-job file if it exists")
    ("borderline", "also rank layouts judged borderline in memory (flagged; they may not fit)")
    ("headroom", po::value<double>(), "percent of the GPU's memory the band's upper edge must leave free "
                                      "(default 10, check's verdict rule; 0 to 50)");
  const ParsedArgs parsed = parse_args("tune", options, args);
  const auto& v = parsed.vars;
  // The model: a job file, --model, or --hf-config without a job file or a
  // Bridge YAML (then --gpu/--gpus say the rest); Bridge inputs layer on any.
  const bool job_file = !parsed.positional.empty();
  const bool generated = v.count("model") != 0
                         || (v.count("hf-config") != 0 && !job_file && v.count("bridge-config") == 0);
  const bool other_inputs = job_file || has_job_inputs_besides_file(parsed);
  if (job_file && v.count("model") != 0) {
    UsageError error("tune: give a job file or --model, not both");
    error.hint = "launchguard tune JOB.toml, or launchguard tune --model PRESET --gpu GPU --gpus N";
    throw error;
  }
  if (!generated && !other_inputs) {
    UsageError error("tune: give a job file, --model or --hf-config, or Megatron Bridge inputs");
    error.hint = "launchguard tune JOB.toml, or launchguard tune --model PRESET --gpu GPU --gpus N";
    throw error;
  }
  config::JobSpec spec = generated ? load_job(parsed, model_job(parsed)) : load_job(parsed);
  if (!generated) {
    apply_overrides(parsed, spec);
  }
  // What the job's inputs set is kept (a generated job sets no layout; Bridge
  // inputs on it may), the rest is searched.
  tune::Request request;
  request.free = tune::free_dimensions(spec, v.count("free") != 0 ? split_list(v["free"].as<std::string>())
                                                                  : std::vector<std::string>{},
                                       true);
  request.expandable_segments = preflight::expandable_segments_on(spec);
  request.base = spec;
  request.borderline = v.count("borderline") != 0;
  if (v.count("headroom") != 0) {
    const double percent = v["headroom"].as<double>();
    if (!(percent >= 0 && percent <= 50)) {
      UsageError error("tune: --headroom {} is outside 0 to 50 (percent of the GPU's memory)", percent);
      error.hint = "--headroom 10 keeps what check's verdict keeps free; --headroom 0 lets the band's upper edge "
                   "reach the capacity";
      throw error;
    }
    request.headroom = percent / 100;
  }
  const tune::Result result = tune::search(request);
  const int top = v["top"].as<int>();
  const int pick = v["pick"].as<int>();
  if (top < 1 || pick < 1) {
    UsageError error("tune: --top and --pick must be at least 1");
    throw error;
  }
  if (v.count("write-job") != 0) {
    const std::string path = v["write-job"].as<std::string>();
    if (static_cast<std::size_t>(pick) > result.candidates.size()) {
      InputError error("tune: no layout of rank {} to write ({} candidates)", pick, result.candidates.size());
      throw error;
    }
    if (std::filesystem::exists(path) && v.count("force") == 0) {
      UsageError error("tune: {} exists", path);
      error.hint = "pass --force to overwrite it, or choose another --write-job path";
      throw error;
    }
    const tune::Candidate& chosen = result.candidates[static_cast<std::size_t>(pick - 1)];
    const config::JobSpec out = tune::spec_of(request, result, chosen);
    write_file_atomically(
        path, config::job_to_toml(out, fmt::format("Written by launchguard tune: rank {} of {} candidates, {}\n"
                                              "predicted {:.0f} TFLOP/s/GPU, {:.0f} tokens/s/GPU",
                                              pick, result.candidates.size(),
                                              tune::describe(chosen.layout, result.recompute_choices),
                                              chosen.throughput.tflops_per_gpu,
                                              chosen.throughput.tokens_per_sec_per_gpu)),
        job_env_write_options(out));  // a job file holding a credential from [env] is 0600
  }
  if (global.json) {
    nlohmann::json candidates = nlohmann::json::array();
    for (std::size_t i = 0; i < std::min<std::size_t>(static_cast<std::size_t>(top), result.candidates.size()); ++i) {
      candidates.push_back(candidate_json(result, result.candidates[i], i + 1));
    }
    nlohmann::json pareto = nlohmann::json::array();
    for (std::size_t i = 0; i < result.candidates.size(); ++i) {
      if (result.candidates[i].pareto) {
        pareto.push_back(candidate_json(result, result.candidates[i], i + 1));
      }
    }
    print_json({{"searched", result.searched},
                {"pruned_by_rules", result.pruned_by_rules},
                {"pruned_by_memory", result.pruned_by_memory},
                {"survivors", result.candidates.size()},
                {"borderline", result.borderline},
                {"headroom", request.headroom},
                {"over_headroom", result.over_headroom},
                {"fastest_over_headroom", over_headroom_json(result)},
                {"candidates", candidates},
                {"pareto", pareto},
                {"caveats", caveats_of(spec)}});
  } else {
    print_text(global, spec, request, result, static_cast<std::size_t>(top));
    print_over_headroom(result, request.headroom);
    if (v.count("write-job") != 0) {
      fmt::print("\nwrote {} (rank {})\n", v["write-job"].as<std::string>(), pick);
    }
  }
  return result.candidates.empty() ? k_exit_job_errors : k_exit_ok;
}

} // namespace lg::cli
