#include "tune/search.hpp"

#include "estimate/parameters.hpp"
#include "rules/rules.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <utility>

namespace lg::tune {
namespace {

std::vector<std::size_t> identity_order(std::size_t n)
{
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) {
    order[i] = i;
  }
  return order;
}

// Put candidates[order[i]] at i. The sorts sort indices and move each
// candidate once, not at every step of the sort.
void reorder(std::vector<Candidate>& candidates, const std::vector<std::size_t>& order)
{
  std::vector<Candidate> out;
  out.reserve(order.size());
  for (const std::size_t i : order) {
    out.push_back(std::move(candidates[i]));
  }
  candidates = std::move(out);
}

void mark_pareto(std::vector<Candidate>& candidates)
{
  // Best first already; walk by peak ascending and keep each one faster than
  // every lighter one.
  std::vector<std::size_t> order = identity_order(candidates.size());
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return candidates[a].band_bytes < candidates[b].band_bytes;
  });
  double best = -1;
  for (std::size_t i : order) {
    if (candidates[i].throughput.tokens_per_sec_per_gpu > best) {
      candidates[i].pareto = true;
      best = candidates[i].throughput.tokens_per_sec_per_gpu;
    }
  }
}

// Parameters that are not routed experts, and routed-expert parameters, of
// the whole model.
std::pair<double, double> dense_and_expert_parameters(const config::JobSpec& spec)
{
  double experts = 0;
  const int layers = spec.model.num_layers + std::max(0, spec.model.mtp_num_layers);
  for (int i = 0; i < layers; ++i) {
    experts += static_cast<double>(estimate::layer_parameters(spec.model, i).routed);
  }
  const double total = static_cast<double>(
      estimate::count_parameters(spec.model, config::padded_vocab_size(spec)).total);
  return {std::max(0.0, total - experts), experts};
}

// A lower bound of the estimate's peak that needs no estimate: the bf16
// weights, the gradient buffers and Adam's two moments (at least 2 bytes
// each) of the average stage, sharded as the layout shards them (the estimate
// adds master weights, activations, workspaces and takes the heaviest stage).
double peak_lower_bound(const config::JobSpec& spec, const Layout& l, double dense, double experts)
{
  if (l.fsdp) {
    return 0;
  }
  const int world = std::max(1, config::world_size(spec));
  const double dense_gpu = dense / (l.tp * l.pp);
  const double expert_gpu = experts / (std::max(1, l.ep * l.etp) * l.pp);
  const bool lora = spec.peft.method == "lora";
  const double grad = lora ? 0 : (spec.training.optimizer.grad_dtype == "bf16" ? 2 : 4);
  double moments = 0;
  if (!lora && spec.training.optimizer.name == "adam") {
    const double on_gpu = 1 - std::clamp(spec.training.optimizer.cpu_offload_fraction, 0.0, 1.0);
    const double dense_group = l.distributed_optimizer ? std::max(1, world / (l.tp * l.pp)) : 1;
    const double expert_group =
        l.distributed_optimizer ? std::max(1, world / (l.pp * std::max(1, l.ep * l.etp))) : 1;
    moments = 4 * on_gpu * (dense_gpu / dense_group + expert_gpu / expert_group);
  }
  return (dense_gpu + expert_gpu) * (2 + grad) + moments;
}

// Every field of a layout, for the search's memo of what was over memory.
using LayoutKey = std::array<int, 16>;

LayoutKey key_of(const Layout& l)
{
  return {l.tp, l.pp, l.vpp, l.cp, l.ep, l.etp, l.first_stage_layers, l.last_stage_layers,
          (l.account_embedding ? 1 : 0) + (l.account_loss ? 2 : 0),
          l.micro_batch_size, l.sequence_parallel ? 1 : 0, l.recompute, l.distributed_optimizer ? 1 : 0,
          l.fsdp ? 1 : 0, l.cpu_offloading_layers, l.deepep ? 1 : 0};
}

// Layouts that need no more memory than `l` and differ from it in one
// setting that only shrinks memory: sequence parallelism on (activations of
// the norms, residuals and dropouts split over TP), the distributed optimizer
// on (optimizer state sharded over DP), full recompute of every layer
// (`full_uniform`, the choice's index; only each layer's input is kept), the
// job's own dispatcher instead of DeepEP (no registered buffers).
// enumerate() visits each of them before `l`; when one was over memory, so is `l`.
std::array<LayoutKey, 4> lighter_than(const Layout& l, int full_uniform, int& count)
{
  std::array<LayoutKey, 4> out{};
  count = 0;
  if (full_uniform >= 0 && l.recompute != full_uniform) {
    Layout lighter = l;
    lighter.recompute = full_uniform;
    out[static_cast<std::size_t>(count++)] = key_of(lighter);
  }
  if (l.tp > 1 && !l.sequence_parallel) {
    Layout lighter = l;
    lighter.sequence_parallel = true;
    out[static_cast<std::size_t>(count++)] = key_of(lighter);
  }
  if (!l.fsdp && !l.distributed_optimizer) {
    Layout lighter = l;
    lighter.distributed_optimizer = true;
    out[static_cast<std::size_t>(count++)] = key_of(lighter);
  }
  if (l.deepep) {
    Layout lighter = l;
    lighter.deepep = false;
    out[static_cast<std::size_t>(count++)] = key_of(lighter);
  }
  return out;
}

// The dimensions a layout shards the model over: TP, PP, CP above 1, and
// FSDP (parameters gathered every microbatch). EP does not count: it shards
// the experts over what is data parallelism for the dense layers.
int model_parallel_dimensions(const Layout& l)
{
  return (l.tp > 1 ? 1 : 0) + (l.pp > 1 ? 1 : 0) + (l.cp > 1 ? 1 : 0) + (l.fsdp ? 1 : 0);
}

// Tie-breaking within the model's resolution (docs/tune.md, "Ranking"): the
// candidates, best prediction first, are cut into tiers, each holding every
// candidate within k_resolution of its fastest one; inside a tier, fewer
// model-parallel dimensions (TP, PP, CP, FSDP) first, then the smaller CP (the Megatron Bridge
// memory-tuning guide adds TP inside NVLink first, then PP, then CP), then the
// prediction.
void break_ties(std::vector<Candidate>& candidates)
{
  // Sorting within a tier leaves the later tiers where they are: the tiers
  // are found on the order as it comes, the indices sorted, the candidates
  // moved once.
  std::vector<std::size_t> order = identity_order(candidates.size());
  auto first = candidates.begin();
  while (first != candidates.end()) {
    const double floor = first->throughput.tokens_per_sec_per_gpu * (1 - k_resolution);
    auto last = std::find_if(first, candidates.end(), [floor](const Candidate& c) {
      return c.throughput.tokens_per_sec_per_gpu < floor;
    });
    std::stable_sort(order.begin() + (first - candidates.begin()), order.begin() + (last - candidates.begin()),
                     [&](std::size_t i, std::size_t j) {
                       const Candidate& a = candidates[i];
                       const Candidate& b = candidates[j];
                       const int da = model_parallel_dimensions(a.layout);
                       const int db = model_parallel_dimensions(b.layout);
                       return da != db ? da < db : a.layout.cp < b.layout.cp;
                     });
    first = last;
  }
  reorder(candidates, order);
}

// Candidate `layout` with what the search records of it.
Candidate candidate_of(const Layout& layout, const estimate::Estimate& est, double band, int warnings,
                       throughput::Throughput throughput)
{
  Candidate c;
  c.layout = layout;
  c.peak_bytes = est.peak_bytes;
  c.band_bytes = band;
  c.stage_peaks.reserve(est.stages.size());
  for (const auto& stage : est.stages) {
    c.stage_peaks.push_back(stage.device_peak_bytes);
  }
  c.verdict = est.verdict;
  c.warnings = warnings;
  c.throughput = std::move(throughput);
  return c;
}

// A layout judged to fit or borderline whose band's upper edge is over the
// headroom (its peak within capacity): counted, and kept when it is the
// fastest such layout so far that breaks no rule.
void note_over_headroom(Result& result, const Layout& layout, const config::JobSpec& work,
                        const estimate::Estimate& est, double band)
{
  ++result.over_headroom;
  auto t = throughput::predict(work);
  if (result.fastest_over_headroom
      && t.tokens_per_sec_per_gpu <= result.fastest_over_headroom->throughput.tokens_per_sec_per_gpu) {
    return;
  }
  if (has_errors(rules::check(work, est, Severity::warning))) {
    return;
  }
  result.fastest_over_headroom = candidate_of(layout, est, band, 0, std::move(t));
}

} // namespace

config::JobSpec spec_of(const Request& request, const Result& result, const Candidate& candidate)
{
  config::JobSpec spec = request.base;
  apply_layout(candidate.layout, result.recompute_choices, result.keep, spec);
  return spec;
}

void rank(std::vector<Candidate>& candidates)
{
  std::vector<std::size_t> order = identity_order(candidates.size());
  std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
    const Candidate& a = candidates[i];
    const Candidate& b = candidates[j];
    if (a.throughput.tokens_per_sec_per_gpu != b.throughput.tokens_per_sec_per_gpu) {
      return a.throughput.tokens_per_sec_per_gpu > b.throughput.tokens_per_sec_per_gpu;
    }
    return a.band_bytes < b.band_bytes;
  });
  reorder(candidates, order);
  const double best = candidates.empty() ? 0 : candidates.front().throughput.tokens_per_sec_per_gpu;
  for (auto& c : candidates) {
    c.relative = best > 0 ? c.throughput.tokens_per_sec_per_gpu / best : 0;
    c.pareto = false;
  }
  mark_pareto(candidates);
  break_ties(candidates);
}

Result search(const Request& request)
{
  Result result;
  const config::JobSpec& base = request.base;
  const int layers_per_chunk = std::max(
      1, base.model.num_layers / std::max(1, base.parallelism.pp * base.parallelism.vpp.value_or(1)));
  result.recompute_choices = recompute_choices(base.model, layers_per_chunk);
  const Layout fixed = layout_of(base, result.recompute_choices);
  result.keep.tp_comm = base.locations.count("training.tp_comm_overlap") != 0;
  result.keep.grad_reduce = base.locations.count("training.overlap_grad_reduce") != 0;
  result.keep.param_gather = base.locations.count("training.overlap_param_gather") != 0;
  result.capacity_bytes = static_cast<double>(base.cluster.gpu_info.capacity_bytes);
  const double limit = (1 - std::clamp(request.headroom, 0.0, 0.5)) * result.capacity_bytes;

  estimate::Options options;
  options.expandable_segments = request.expandable_segments;
  options.assumptions = false;  // numbers and verdicts only
  estimate::ParameterCounts model_parameters;
  std::int64_t counted_vocab = -1;
  options.parameters = &model_parameters;
  config::JobSpec work = base;  // one working copy, rewritten per layout
  // Named copies, not a structured binding: clang 14 cannot capture one.
  const auto parameter_split = dense_and_expert_parameters(base);
  const auto dense_params = parameter_split.first;
  const auto expert_params = parameter_split.second;
  std::set<LayoutKey> over_memory;  // layouts found over memory so far
  int full_uniform = -1;            // the choice that recomputes every layer in full
  for (std::size_t i = 0; i < result.recompute_choices.size(); ++i) {
    const RecomputeChoice& r = result.recompute_choices[i];
    if (r.granularity == config::RecomputeGranularity::full && r.method == config::RecomputeMethod::uniform
        && r.num_layers == 1) {
      full_uniform = static_cast<int>(i);
    }
  }
  const SpaceCounts counts = enumerate(
      base, request.free, fixed, static_cast<int>(result.recompute_choices.size()), [&](const Layout& layout) {
        int lighter_count = 0;
        const auto lighter = lighter_than(layout, full_uniform, lighter_count);
        for (int i = 0; i < lighter_count; ++i) {
          if (over_memory.count(lighter[static_cast<std::size_t>(i)]) != 0) {
            over_memory.insert(key_of(layout));
            ++result.pruned_by_memory;
            return false;
          }
        }
        if (peak_lower_bound(base, layout, dense_params, expert_params) > limit) {
          over_memory.insert(key_of(layout));
          ++result.pruned_by_memory;
          return false;
        }
        if (work.model.moe) {
          work.model.moe = base.model.moe;  // the job's dispatcher unless the layout sets DeepEP
        }
        apply_layout(layout, result.recompute_choices, result.keep, work);
        // The model's counts change with the padded vocabulary only (TP).
        if (const std::int64_t vocab = config::padded_vocab_size(work); vocab != counted_vocab) {
          model_parameters = estimate::count_parameters(work.model, vocab);
          counted_vocab = vocab;
        }
        const estimate::Estimate est = estimate::estimate(work, options);
        const double band = est.peak_bytes + est.band_bytes;  // the band's upper edge
        ++result.estimated;
        // Judged (not unknown, not oom) and the band's upper edge within the
        // headroom; a smaller headroom than the verdict rule's keeps layouts
        // the verdict calls borderline, which stay flagged by it.
        const bool judged = est.verdict == estimate::Verdict::fits || est.verdict == estimate::Verdict::borderline;
        const bool fits = judged && band <= limit;
        const bool kept_borderline = request.borderline && est.verdict == estimate::Verdict::borderline;
        if (!fits && !kept_borderline) {
          if (judged && est.peak_bytes <= result.capacity_bytes) {
            note_over_headroom(result, layout, work, est, band);
          }
          over_memory.insert(key_of(layout));
          ++result.pruned_by_memory;
          return false;
        }
        const auto findings = rules::check(work, est, Severity::warning);
        if (has_errors(findings)) {
          ++result.pruned_by_rules;
          return true;
        }
        int warnings = 0;
        for (const auto& f : findings) {
          warnings += f.severity == Severity::warning ? 1 : 0;
        }
        Candidate c = candidate_of(layout, est, band, warnings, throughput::predict(work));
        result.borderline += est.verdict == estimate::Verdict::borderline ? 1 : 0;
        result.candidates.push_back(std::move(c));
        return true;
      });
  result.searched = counts.searched;
  result.pruned_by_rules += counts.structurally_invalid;
  result.pruned_by_memory += counts.over_memory_by_smaller_mbs;
  rank(result.candidates);
  return result;
}

} // namespace lg::tune
