// tune: the structural pre-checks are rules of `check`, every candidate fits
// and passes the rules, ranking and Pareto front, kept dimensions, and the
// written job file loads back to the same layout.
#include "config/loader.hpp"
#include "estimate/estimate.hpp"
#include "rules/rules.hpp"
#include "support/builders.hpp"
#include "config/job_writer.hpp"
#include "tune/search.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <set>
#include <utility>

using namespace lg;

namespace {

config::LoadOptions presets()
{
  config::LoadOptions options;
  options.preset_dirs = {std::string(LG_SOURCE_DIR) + "/presets"};
  return options;
}

config::JobSpec example()
{
  return config::load_job_file(std::string(LG_SOURCE_DIR) + "/examples/llama3-70b-sft-h100.toml", presets());
}

bool rules_error(const config::JobSpec& spec)
{
  estimate::Options options;
  return has_errors(rules::check(spec, estimate::estimate(spec, options)));
}

// A small search: the example job with only TP, PP, VPP and MBS free.
tune::Request small_request()
{
  tune::Request request;
  request.base = example();
  request.free = tune::free_dimensions(request.base, {}, true);
  request.free.tp = request.free.pp = request.free.vpp = request.free.mbs = true;
  return request;
}

} // namespace

TEST_CASE("each structural pre-check is an error of check's rules")
{
  // parallelism.world_size, heads_divisible_by_tp, layers_divisible_by_pp, gbs_divisible
  // ([ML] megatron/training/arguments.py, the same checks check reports).
  auto spec = example();
  CHECK_FALSE(rules_error(spec));
  auto world = spec;
  world.parallelism.tp = 4;
  world.parallelism.pp = 3;
  world.parallelism.vpp.reset();
  CHECK(rules_error(world));  // 32 GPUs not divisible by tp x pp = 12
  auto heads = spec;
  heads.model.num_attention_heads = 48;  // 48 heads / tp 32 is not integral
  heads.parallelism.tp = 32;
  heads.parallelism.pp = 1;
  heads.parallelism.vpp.reset();
  CHECK(rules_error(heads));
  auto batch = spec;
  batch.training.micro_batch_size = 3;  // 32 / (3 x 2) not integral
  CHECK(rules_error(batch));
  auto offload = spec;
  offload.training.cpu_offloading_layers = 4;  // with pp = 4
  CHECK(rules_error(offload));
}

TEST_CASE("every candidate fits, passes the rules, and the counts add up")
{
  const tune::Request request = small_request();
  const tune::Result result = tune::search(request);
  REQUIRE_FALSE(result.candidates.empty());
  CHECK(result.searched == result.pruned_by_rules + result.pruned_by_memory
                               + static_cast<long>(result.candidates.size()));
  estimate::Options options;
  for (const auto& c : result.candidates) {
    const auto spec = tune::spec_of(request, result, c);
    const auto est = estimate::estimate(spec, options);
    CHECK(est.verdict == estimate::Verdict::fits);
    CHECK(c.peak_bytes == doctest::Approx(est.peak_bytes));
    CHECK_FALSE(has_errors(rules::check(spec, est)));
    // The job sets everything but tp/pp/vpp/mbs: those stay.
    CHECK(spec.parallelism.cp == 1);
    CHECK(spec.training.recompute.granularity == request.base.training.recompute.granularity);
  }
  // Best first, but for ties: no candidate is ranked below one that is more than the
  // model's resolution slower (docs/tune.md, "Ranking").
  double slowest = result.candidates.front().throughput.tokens_per_sec_per_gpu;
  int faster_after = 0;
  for (const auto& c : result.candidates) {
    CHECK(c.throughput.tokens_per_sec_per_gpu * (1 - tune::k_resolution) <= slowest);
    faster_after += c.throughput.tokens_per_sec_per_gpu > slowest ? 1 : 0;
    slowest = std::min(slowest, c.throughput.tokens_per_sec_per_gpu);
  }
  CHECK(faster_after > 0);  // this search has ties that the simpler layout won
  // The first: the fewest model-parallel dimensions (TP, PP, CP, FSDP) among those tied with the best.
  auto dimensions = [](const tune::Layout& l) { return (l.tp > 1) + (l.pp > 1) + (l.cp > 1) + l.fsdp; };
  double best = 0;
  for (const auto& c : result.candidates) {
    best = std::max(best, c.throughput.tokens_per_sec_per_gpu);
  }
  for (const auto& c : result.candidates) {
    if (c.throughput.tokens_per_sec_per_gpu >= (1 - tune::k_resolution) * best) {
      CHECK(dimensions(result.candidates.front().layout) <= dimensions(c.layout));
    }
  }
}

TEST_CASE("--borderline also ranks the layouts judged borderline, flagged, and keeps every fitting one")
{
  tune::Request request = small_request();
  const tune::Result fits = tune::search(request);
  request.borderline = true;
  const tune::Result all = tune::search(request);
  CHECK(all.searched == all.pruned_by_rules + all.pruned_by_memory + static_cast<long>(all.candidates.size()));
  long borderline = 0;
  long fitting = 0;
  for (const auto& c : all.candidates) {
    borderline += c.verdict == estimate::Verdict::borderline ? 1 : 0;
    fitting += c.verdict == estimate::Verdict::fits ? 1 : 0;
  }
  CHECK(borderline == all.borderline);
  CHECK(borderline > 0);  // the example job (MBS 1, TP 4) has borderline neighbours
  CHECK(fitting == static_cast<long>(fits.candidates.size()));
  CHECK(fits.borderline == 0);
}

TEST_CASE("--headroom: the band's upper edge within (1 - headroom) of capacity; 10% is check's verdict rule")
{
  tune::Request request = small_request();
  const tune::Result verdict_rule = tune::search(request);
  request.headroom = 0.10;
  CHECK(tune::search(request).candidates.size() == verdict_rule.candidates.size());
  request.headroom = 0.0;
  const tune::Result none = tune::search(request);
  CHECK(none.searched == verdict_rule.searched);
  CHECK(none.candidates.size() > verdict_rule.candidates.size());
  long borderline = 0;
  for (const auto& c : none.candidates) {
    CHECK(c.band_bytes <= none.capacity_bytes);
    CHECK(c.verdict != estimate::Verdict::oom);
    borderline += c.verdict == estimate::Verdict::borderline ? 1 : 0;
  }
  // What the smaller headroom adds is what check calls borderline, flagged so.
  CHECK(borderline == none.borderline);
  CHECK(borderline == static_cast<long>(none.candidates.size() - verdict_rule.candidates.size()));
  request.headroom = 0.30;
  const tune::Result wide = tune::search(request);
  CHECK(wide.candidates.size() < verdict_rule.candidates.size());
  for (const auto& c : wide.candidates) {
    CHECK(c.band_bytes <= 0.70 * wide.capacity_bytes);
  }
}

TEST_CASE("the Pareto front: no candidate is lighter and faster than one on it")
{
  const tune::Result result = tune::search(small_request());
  int on_front = 0;
  for (const auto& a : result.candidates) {
    if (!a.pareto) {
      continue;
    }
    ++on_front;
    for (const auto& b : result.candidates) {
      CHECK_FALSE((b.band_bytes < a.band_bytes
                   && b.throughput.tokens_per_sec_per_gpu > a.throughput.tokens_per_sec_per_gpu));
    }
  }
  CHECK(on_front >= 1);
  CHECK(result.candidates.front().pareto);  // the fastest is always on it
}

TEST_CASE("what the job sets is kept unless --free names it")
{
  auto request = small_request();
  request.free = tune::free_dimensions(request.base, {}, true);  // the job sets every dimension
  const auto kept = tune::search(request);
  CHECK(kept.searched == 1);
  request.free = tune::free_dimensions(request.base, {"tp"}, true);
  for (const auto& c : tune::search(request).candidates) {
    CHECK(c.layout.pp == 4);
    CHECK(c.layout.vpp == 5);
  }
  CHECK_THROWS_AS(tune::free_dimensions(request.base, {"tpp"}, true), UsageError);
}

TEST_CASE("the written job file loads back to the chosen layout and passes check")
{
  const tune::Request request = small_request();
  const tune::Result result = tune::search(request);
  REQUIRE_FALSE(result.candidates.empty());
  const auto chosen = tune::spec_of(request, result, result.candidates.front());
  const auto text = config::job_to_toml(chosen, "test");
  const auto loaded = config::load_job_text(text, "written.toml", presets());
  CHECK(loaded.parallelism.tp == chosen.parallelism.tp);
  CHECK(loaded.parallelism.pp == chosen.parallelism.pp);
  CHECK(loaded.parallelism.vpp == chosen.parallelism.vpp);
  CHECK(loaded.training.micro_batch_size == chosen.training.micro_batch_size);
  CHECK(loaded.training.tp_comm_overlap == chosen.training.tp_comm_overlap);
  CHECK(loaded.training.recompute.modules == chosen.training.recompute.modules);
  CHECK(loaded.model.num_layers == 80);
  CHECK(loaded.env == chosen.env);
  CHECK(loaded.slurm.partition == "batch");
  CHECK_FALSE(rules_error(loaded));
}

TEST_CASE("a value with quotes and newlines survives the job writer")
{
  auto spec = example();
  spec.name = "a \"quoted\"\nname";
  spec.env = {{"WEIRD", "x\\y\"z"}};
  const auto loaded = config::load_job_text(config::job_to_toml(spec, ""), "w.toml", presets());
  CHECK(loaded.name == spec.name);
  CHECK(loaded.env == spec.env);
}

TEST_CASE("layers + 2 divisible by PP: the embedding and loss counted in the split, VPP over the counted layers")
{
  // Megatron-LM --account-for-embedding/loss-in-pipeline-split (the Bridge recipes of Llama 3.1
  // 405B, 126 layers on PP 16 with VPP 4 or 8). 78 layers on PP 4: 80 counted, 20 per rank,
  // VPP 5 of 4 counted layers each (the first and last chunk one decoder layer short).
  auto spec = example();
  spec.model.num_layers = 78;
  tune::Free free = tune::free_dimensions(spec, {"pp", "vpp"}, true);
  std::vector<tune::RecomputeChoice> choices = tune::recompute_choices(spec.model, 4);
  const tune::Layout fixed = tune::layout_of(spec, choices);
  bool found = false;
  tune::enumerate(spec, free, fixed, static_cast<int>(choices.size()), [&](const tune::Layout& l) {
    if (l.pp == 4 && l.vpp == 5) {
      found = l.account_embedding && l.account_loss && l.first_stage_layers < 0;
      auto applied = spec;
      tune::apply_layout(l, choices, {}, applied);
      CHECK_FALSE(rules_error(applied));
    }
    return true;
  });
  CHECK(found);
}

TEST_CASE("a pipeline layout string: PP divides its stages and VPP is stages / PP")
{
  // Megatron-LM pipeline_model_parallel_layout (core/transformer/pipeline_parallel_layer_layout.py:
  // stage i is chunk i / pp of rank i % pp), as the DeepSeek-V3 recipes set it for 61 layers + MTP.
  // 79 layers split over no PP > 1 (nor do 81); this layout's 8 stages hold 9, 6 x 10 and 10.
  auto spec = example();  // 32 GPUs, TP 4: PP up to 8
  spec.model.num_layers = 79;
  tune::Free free = tune::free_dimensions(spec, {"pp", "vpp"}, true);
  std::vector<tune::RecomputeChoice> choices = tune::recompute_choices(spec.model, 4);
  const auto stages_of = [&](const config::JobSpec& s) {
    std::set<std::pair<int, int>> out;
    tune::enumerate(s, free, tune::layout_of(s, choices), static_cast<int>(choices.size()), [&](const tune::Layout& l) {
      out.emplace(l.pp, l.vpp);
      if (l.pp > 1) {
        auto applied = s;
        tune::apply_layout(l, choices, {}, applied);
        CHECK_FALSE(rules_error(applied));
      }
      return true;
    });
    return out;
  };
  CHECK(stages_of(spec) == std::set<std::pair<int, int>>{{1, 0}});
  spec.parallelism.pipeline_layout = "Et*9|(t*10|)*6t*10L";
  CHECK(stages_of(spec) == std::set<std::pair<int, int>>{{1, 0}, {2, 4}, {4, 2}, {8, 0}});
}

TEST_CASE("rank: ties are the predictions within the model's resolution, the simpler layout first")
{
  // Hand-made candidates, tokens/s/GPU: A 1000 (TP2 PP2), B 950 (PP2 only: a dimension fewer),
  // C 930 (TP1 PP1 FSDP), D 900 (DP only). With k_resolution 6%: the first tier holds everything
  // at or above 940 (A, B) and B, the simpler, leads; C opens the next tier (930 x 0.94 = 874.2
  // takes D in) and D, with no model-parallel dimension, leads it. `relative` stays against the
  // fastest prediction.
  REQUIRE(tune::k_resolution == doctest::Approx(0.06));
  auto make = [](int tp, int pp, bool fsdp, double tokens) {
    tune::Candidate c;
    c.layout.tp = tp;
    c.layout.pp = pp;
    c.layout.fsdp = fsdp;
    c.throughput.tokens_per_sec_per_gpu = tokens;
    return c;
  };
  std::vector<tune::Candidate> candidates = {make(1, 1, true, 930), make(2, 2, false, 1000),
                                             make(1, 1, false, 900), make(1, 2, false, 950)};
  tune::rank(candidates);
  std::vector<double> order;
  for (const auto& c : candidates) {
    order.push_back(c.throughput.tokens_per_sec_per_gpu);
  }
  CHECK(order == std::vector<double>{950, 1000, 900, 930});
  CHECK(candidates[0].relative == doctest::Approx(0.95));
  CHECK(candidates[1].relative == doctest::Approx(1.0));
}

TEST_CASE("dispatcher: DeepEP is tried where the EP group crosses NVLink domains, on GPUs that run it")
{
  // Qwen3-30B-A3B (128 experts) on 2 x 8 H100: EP 16 spans both nodes.
  // DeepEP's GPUs: Megatron Bridge training/flex_dispatcher_backend.py
  // (validate_flex_dispatcher_backend); GB200/GB300 run HybridEP, which the
  // estimate does not model, so nothing is tried there.
  const char* text = "[job]\nname = \"moe\"\n[model]\npreset = \"qwen3-30b-a3b\"\nseq_length = 4096\n"
                     "[training]\nglobal_batch_size = 256\nprecision = \"fp8-cs\"\n"
                     "[cluster]\ngpu = \"h100-80gb\"\nnodes = 2\ngpus_per_node = 8\n";
  tune::Request request;
  request.base = config::load_job_text(text, "moe.toml", presets());
  request.free = tune::free_dimensions(request.base, {}, true);
  request.free.pp = request.free.vpp = request.free.cp = false;
  request.free.fsdp = request.free.offload = request.free.distributed_optimizer = false;
  REQUIRE(request.free.ep);
  REQUIRE(request.free.dispatcher);
  const auto result = tune::search(request);
  int deepep = 0;
  for (const auto& c : result.candidates) {
    const auto spec = tune::spec_of(request, result, c);
    if (c.layout.deepep) {
      ++deepep;
      CHECK(c.layout.ep * c.layout.etp > 8);
      CHECK(spec.model.moe->token_dispatcher == "flex");
      CHECK(spec.model.moe->flex_backend == "deepep");
    } else {
      CHECK(spec.model.moe->token_dispatcher == request.base.model.moe->token_dispatcher);
    }
    // The search's working copy was reset between layouts: each prediction is
    // its own job's.
    CHECK(c.throughput.tokens_per_sec_per_gpu == doctest::Approx(throughput::predict(spec).tokens_per_sec_per_gpu));
  }
  CHECK(deepep > 0);

  auto gb200 = request;
  gb200.base = config::load_job_text(std::string(text).replace(std::string(text).find("h100-80gb"), 9, "gb200"),
                                     "moe.toml", presets());
  gb200.base.cluster.gpus_per_node = 4;
  gb200.base.cluster.nodes = 4;
  const auto on_gb200 = tune::search(gb200);
  CHECK_FALSE(on_gb200.candidates.empty());  // the loop below is not vacuous
  for (const auto& c : on_gb200.candidates) {
    CHECK_FALSE(c.layout.deepep);
  }
  // A job that names its dispatcher keeps it.
  auto named = request;
  named.base = config::load_job_text(std::string(text) + "[model.moe]\ntoken_dispatcher = \"alltoall\"\n", "moe.toml",
                                     presets());
  named.free = tune::free_dimensions(named.base, {"ep"}, true);
  CHECK_FALSE(named.free.dispatcher);
  const auto kept = tune::search(named);
  CHECK_FALSE(kept.candidates.empty());
  for (const auto& c : kept.candidates) {
    CHECK_FALSE(c.layout.deepep);
  }
}

TEST_CASE("over the headroom: counted, and the fastest rule-clean one kept with its prediction")
{
  auto request = small_request();
  request.free.recompute = true;
  const auto result = tune::search(request);
  const double limit = (1 - request.headroom) * result.capacity_bytes;
  REQUIRE(result.fastest_over_headroom.has_value());
  {
    const auto& c = *result.fastest_over_headroom;
    CHECK(result.over_headroom > 0);
    CHECK(c.band_bytes > limit);                     // pruned by the headroom ...
    CHECK(c.peak_bytes <= result.capacity_bytes);    // ... though its peak fits
    CHECK(c.verdict != estimate::Verdict::unknown);
    CHECK(c.throughput.tokens_per_sec_per_gpu > 0);
    const auto spec = tune::spec_of(request, result, c);
    CHECK_FALSE(rules_error(spec));
    for (const auto& kept : result.candidates) {
      CHECK(kept.band_bytes <= limit);
    }
  }
  // A larger headroom prunes more of what fits within capacity.
  auto wide = request;
  wide.headroom = 0.3;
  const auto more = tune::search(wide);
  CHECK(more.over_headroom > result.over_headroom);
  REQUIRE(more.fastest_over_headroom.has_value());
  CHECK(more.fastest_over_headroom->band_bytes > 0.7 * more.capacity_bytes);
}
