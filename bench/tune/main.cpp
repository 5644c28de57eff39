// bench_tune: the throughput model against the published Megatron Bridge
// layouts (bridge_performance.json). Calibration set: releases 25.09 and
// 25.11; every other release is held out.
// Usage: bench_tune <bridge_performance.json> <presets dir> [--calibrate] [--rows] [--ranks] [--no-tune]
//        [--no-search] [--speed] [--classify] [--only TEXT] [--dump FILE]
//        (--only: the rows whose release|task|model|system|precision|gpus|gbs|seq contains TEXT;
//        --dump: per problem, the best candidate of each distinct layout, as CSV)   (--no-search: the tune table without the searches: fit and pairs only)
#include "config/loader.hpp"
#include "estimate/estimate.hpp"
#include "rows.hpp"
#include "rules/rules.hpp"
#include "throughput/systems.hpp"
#include "throughput/throughput.hpp"
#include "tune/search.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <map>
#include <set>

namespace {

using lg::bench::Row;

// --dump FILE: every candidate of every problem's search, one CSV line each
// (for studying the ranking offline).
std::ofstream* g_dump = nullptr;

// --headroom X: tune's headroom (a fraction of capacity) for every search.
double g_headroom = lg::tune::k_default_headroom;

// A candidate of a --borderline search that tune's default search (at
// g_headroom) keeps too: the band's upper edge within the headroom.
bool within_headroom(const lg::tune::Candidate& c, const lg::tune::Result& result)
{
  return c.band_bytes <= (1 - g_headroom) * result.capacity_bytes;
}

bool calibration_release(const std::string& release)
{
  return release == "25.09" || release == "25.11";
}

double median(std::vector<double> v)
{
  if (v.empty()) {
    return 0;
  }
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string family(const std::string& precision)
{
  if (precision == "bf16") {
    return "bf16";
  }
  return precision == "nvfp4" ? "fp4" : "fp8";
}

struct Predicted
{
  Row row;
  lg::config::JobSpec spec;  // what tune and the estimate read
  double error = 0;          // predicted / measured - 1 (tokens/s/GPU)
  // The prediction with the recipe's token dispatcher (rows.hpp, job_text):
  // the error, the calibration, the pairs, and `within 10%` against the
  // search's best.
  lg::throughput::Throughput t;
  lg::config::JobSpec dispatched;  // `spec` with the recipe's dispatcher
  // What the fit check judges: the published job as it ran, `dispatched`
  // where the estimate models the dispatcher's buffers (DeepEP), else `spec`.
  const lg::config::JobSpec* judged = nullptr;
};

// Bisection for the value of one rate that makes the median log error of
// `members` zero (predictions fall as the efficiency rises).
template<typename Set>
double fit(const std::vector<const Predicted*>& members, Set set)
{
  double lo = 0.02;
  double hi = 2.0;
  for (int it = 0; it < 40; ++it) {
    const double mid = (lo + hi) / 2;
    std::vector<double> errors;
    for (const Predicted* p : members) {
      auto rates = lg::throughput::system_rates(p->dispatched.cluster.gpu_info);
      set(rates, mid);
      const auto t = lg::throughput::predict(p->dispatched, rates);
      errors.push_back(std::log(t.tokens_per_sec_per_gpu / p->row.tokens));
    }
    (median(errors) > 0 ? hi : lo) = mid;
  }
  return (lo + hi) / 2;
}

// Per system: the FP8 GEMM efficiency on the dense rows, then the grouped-GEMM
// efficiency of routed experts on the MoE rows (with that FP8 efficiency).
void calibrate(const std::vector<Predicted>& rows)
{
  std::map<std::string, std::vector<const Predicted*>> dense;
  std::map<std::string, std::vector<const Predicted*>> moe;
  for (const auto& p : rows) {
    if (calibration_release(p.row.release)) {
      (p.spec.model.moe ? moe : dense)[p.row.system].push_back(&p);
    }
  }
  fmt::print("calibration (releases 25.09, 25.11), per system:\n");
  std::set<std::string> systems;
  for (const auto& p : rows) {
    systems.insert(p.row.system);
  }
  for (const std::string& system : systems) {
    double fp8 = -1;
    if (!dense[system].empty()) {
      std::vector<const Predicted*> fp8_rows;
      for (const Predicted* p : dense[system]) {
        if (family(p->row.precision) == "fp8") {
          fp8_rows.push_back(p);
        }
      }
      if (!fp8_rows.empty()) {
        fp8 = fit(fp8_rows, [](lg::throughput::SystemRates& r, double v) { r.gemm_efficiency_fp8 = v; });
      }
    }
    double grouped = -1;
    if (!moe[system].empty()) {
      grouped = fit(moe[system], [fp8](lg::throughput::SystemRates& r, double v) {
        if (fp8 > 0) {
          r.gemm_efficiency_fp8 = fp8;
        }
        r.grouped_gemm_efficiency = v;
      });
    }
    fmt::print("  {:<10} dense fp8 rows {:>2}: gemm_efficiency_fp8 {:.3f}   moe rows {:>2}: "
               "grouped_gemm_efficiency {:.3f}\n",
               system, dense[system].size(), fp8, moe[system].size(), grouped);
  }
}

// A problem of the benchmark's own (not a published row): FP8-CS on H100,
// micro batch 1, the layout left to the caller.
Row h100_fp8_problem(const char* release, const char* task, const char* model, int gpus, int gbs, int seq)
{
  Row row;
  row.release = release;
  row.task = task;
  row.model = model;
  row.system = "h100-80gb";
  row.precision = "fp8_cs";
  row.gpus = gpus;
  row.gbs = gbs;
  row.mbs = 1;
  row.seq = seq;
  return row;
}

// The step's costs in ms, the non-zero ones.
std::string cost_line(const lg::throughput::Throughput& t)
{
  std::string out;
  for (const auto& [name, seconds] : t.costs) {
    if (seconds > 0) {
      out += fmt::format("{}{} {:.0f}", out.empty() ? "" : ", ", name, 1e3 * seconds);
    }
  }
  return out + " ms";
}

// The Megatron Bridge memory-tuning guide's measured table (Llama3 70B SFT,
// 32 x H100, FP8-CS, seq 4096, GBS 32, MBS 1): the baseline TP4 PP4 VPP5 DP2
// and its variants, predicted relative changes against measured ones.
void guide(const lg::config::LoadOptions& options)
{
  auto spec_of = [&](int tp, int pp, const char* recompute) {
    Row row = h100_fp8_problem("guide", "sft", "llama3-70b", 32, 32, 4096);
    row.tp = tp;
    row.pp = pp;
    row.vpp = 5;
    std::string text = lg::bench::job_text(row);
    text.insert(text.find("[cluster]"), fmt::format("recompute = {}\n", recompute));
    return lg::config::load_job_text(text, "guide.toml", options);
  };
  const char* core = "{ granularity = \"selective\", modules = [\"core_attn\"] }";
  const char* mlp = "{ granularity = \"selective\", modules = [\"core_attn\", \"mlp\"] }";
  const auto base = lg::throughput::predict(spec_of(4, 4, core));
  struct Case
  {
    const char* name;
    lg::config::JobSpec spec;
    double measured;  // relative change
  };
  const Case cases[] = {{"TP4 -> TP8 (DP 2 -> 1)", spec_of(8, 4, core), -0.284},
                        {"PP4 -> PP8 (DP 2 -> 1)", spec_of(4, 8, core), -0.059},
                        {"+ selective mlp recompute", spec_of(4, 4, mlp), -0.16}};
  fmt::print("memory-tuning guide (Llama3 70B SFT, 32 x H100): baseline predicted {:.0f} TFLOP/s/GPU "
             "(measured ~704; {})\n",
             base.tflops_per_gpu, cost_line(base));
  for (const Case& c : cases) {
    const auto t = lg::throughput::predict(c.spec);
    fmt::print("  {:<28} predicted {:+6.1f}%  measured {:+6.1f}%  ({})\n", c.name,
               100 * (t.tflops_per_gpu / base.tflops_per_gpu - 1), 100 * c.measured, cost_line(t));
  }
}

// The published dimensions of a layout: what the Bridge tables list.
std::string key_of(int tp, int pp, int vpp, int cp, int ep, int mbs, bool fsdp)
{
  return fmt::format("tp{} pp{} vpp{} cp{} ep{} mbs{}{}", tp, pp, vpp > 1 ? vpp : 0, cp, ep, mbs, fsdp ? " fsdp" : "");
}

std::string key_of(const lg::tune::Layout& l)
{
  return key_of(l.tp, l.pp, l.vpp, l.cp, l.ep, l.micro_batch_size, l.fsdp);
}

std::string key_of(const Row& r)
{
  return key_of(r.tp, r.pp, r.vpp, r.cp, r.ep, r.mbs, r.fsdp > 0);
}

// The problem without the release: the model does not know software versions.
std::string problem_of(const Row& r)
{
  return fmt::format("{}|{}|{}|{}|{}|{}|{}", r.task, r.model, r.system, r.precision, r.gpus, r.gbs, r.seq);
}

struct Ranked
{
  std::vector<std::string> keys;  // distinct published-dimension layouts, best first
  std::vector<double> tokens;     // their best predicted tokens/s/GPU
  long searched = 0;
  long estimated = 0;   // layouts the memory estimate ran on
  long candidates = 0;  // survivors
  double seconds = 0;
  double best = 0;  // the best prediction among them

  int position(const std::string& key) const  // 0-based, -1 when absent
  {
    const auto pos = std::find(keys.begin(), keys.end(), key);
    return pos == keys.end() ? -1 : static_cast<int>(pos - keys.begin());
  }
};

Ranked distinct(const std::vector<lg::tune::Candidate>& candidates)
{
  Ranked out;
  std::set<std::string> seen;
  for (const auto& c : candidates) {
    const std::string key = key_of(c.layout);
    out.best = std::max(out.best, c.throughput.tokens_per_sec_per_gpu);
    if (seen.insert(key).second) {
      out.keys.push_back(key);
      out.tokens.push_back(c.throughput.tokens_per_sec_per_gpu);
    }
  }
  return out;
}

// tune's ranking of the published problem: `fits` only (what tune prints by
// default) and, with `borderline`, the one that also ranks the layouts judged
// borderline (tune --borderline). One search gives both: the fits-only
// candidates are the same either way (a layout heavier than a borderline one is
// not `fits` either) and are ranked again on their own.
std::pair<Ranked, Ranked> rank_layouts(const lg::config::JobSpec& published, bool borderline,
                                       const std::string& problem_tag = "")
{
  lg::tune::Request request;
  request.base = published;
  request.free = lg::tune::free_dimensions(published, {"all"}, true);
  request.borderline = borderline;
  request.headroom = g_headroom;
  // CPU time of this process (one thread): the figure the speed target is about, and
  // one that a shared, loaded machine does not inflate.
  const std::clock_t start = std::clock();
  const auto result = lg::tune::search(request);
  const double seconds = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  if (g_dump != nullptr) {
    // The best candidate per distinct key, among `fits` ones and among all.
    std::map<std::string, std::pair<const lg::tune::Candidate*, const lg::tune::Candidate*>> best;
    for (const auto& c : result.candidates) {
      auto& [fit, any] = best[key_of(c.layout)];
      const double v = c.throughput.tokens_per_sec_per_gpu;
      if (any == nullptr || v > any->throughput.tokens_per_sec_per_gpu) {
        any = &c;
      }
      if (c.verdict == lg::estimate::Verdict::fits && (fit == nullptr || v > fit->throughput.tokens_per_sec_per_gpu)) {
        fit = &c;
      }
    }
    for (const auto& [key, pair] : best) {
      for (const lg::tune::Candidate* c : {pair.first, pair.second}) {
        if (c == nullptr) {
          continue;
        }
        const auto& l = c->layout;
        std::string line = fmt::format(
          "C,{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.4f},{:.6g}", problem_tag, c == pair.first ? 1 : 0, l.tp, l.pp,
          l.vpp, l.cp, l.ep, l.etp, l.micro_batch_size, l.fsdp ? 1 : 0, l.recompute, l.sequence_parallel ? 1 : 0,
          l.distributed_optimizer ? 1 : 0, c->verdict == lg::estimate::Verdict::fits ? 1 : 0,
          c->band_bytes / result.capacity_bytes, c->throughput.tokens_per_sec_per_gpu);
        for (const auto& [name, v] : c->throughput.costs) {
          line += fmt::format(",{:.6g}", v);
        }
        *g_dump << line << "\n";
      }
    }
  }
  std::vector<lg::tune::Candidate> fits;
  for (const auto& c : result.candidates) {
    if (within_headroom(c, result)) {
      fits.push_back(c);
    }
  }
  lg::tune::rank(fits);
  std::pair<Ranked, Ranked> out{distinct(fits), distinct(result.candidates)};
  for (Ranked* r : {&out.first, &out.second}) {
    r->searched = result.searched;
    r->estimated = result.estimated;
    r->candidates = static_cast<long>(result.candidates.size());
    r->seconds = seconds;
  }
  return out;
}

// What tune_bench counts, per group of problems.
struct Tally
{
  int layouts = 0;     // published rows
  int clean = 0;       // judged fits or borderline, no error-level finding
  int problems = 0;    // distinct (problem, published layout)
  int top5 = 0;        // ... among tune's 5 best distinct published-dimension layouts
  int within10 = 0;    // ... predicted at least 90% of tune's best prediction
  int searchable = 0;  // ... judged `fits`, so tune's memory pruning keeps it
  int searchable_top5 = 0;
  int top5_borderline = 0;  // ... in the top 5 of the ranking that includes borderline layouts
  int within10_borderline = 0;
  int pairs = 0;      // pairs of different layouts of one problem in one release's table
  int ordered = 0;    // ... that the prediction orders as measured
  int any_pairs = 0;  // pairs of different layouts of one problem, any two releases
  int any_ordered = 0;
};

std::string split_of(const Row& r)
{
  return calibration_release(r.release) ? "calibration" : "held-out";
}

// The groups a row counts in: its split, split x dense/MoE, split x GPU.
std::vector<std::string> groups_of(const Predicted& p)
{
  const std::string split = split_of(p.row);
  return {split, split + " " + (p.spec.model.moe ? "moe" : "dense"), split + " " + p.row.system};
}

double percent(int part, int whole)
{
  return 100.0 * part / std::max(1, whole);
}

// tune on the published problems: does the published layout fit (or sit at the
// borderline, which tuned runs near capacity do) and break no error rule, is it
// in tune's top 5 (distinct published-dimension layouts), is its prediction
// within 10% of the best pick, and are several published layouts of one
// problem in one release's table ordered as measured. Per split and group.
void tune_bench(const std::vector<Predicted>& rows, bool verbose, bool search)
{
  std::map<std::string, Tally> tally;
  std::vector<std::string> misses;
  std::map<std::string, std::vector<const Predicted*>> by_problem;  // split|problem
  std::map<const Predicted*, bool> fits_outright;
  for (const auto& p : rows) {
    by_problem[split_of(p.row) + "|" + problem_of(p.row)].push_back(&p);
    const auto est = lg::estimate::estimate(*p.judged, {});
    const auto findings = lg::rules::check(*p.judged, est);
    const bool fits = est.verdict == lg::estimate::Verdict::fits || est.verdict == lg::estimate::Verdict::borderline;
    const bool ok = fits && !has_errors(findings);
    // Within tune's headroom (what its default search keeps).
    fits_outright[&p] = ok
                        && static_cast<double>(est.peak_bytes + est.band_bytes)
                             <= (1 - g_headroom) * static_cast<double>(est.capacity_bytes);
    for (const std::string& g : groups_of(p)) {
      ++tally[g].layouts;
      tally[g].clean += ok ? 1 : 0;
    }
    if (!ok) {
      std::string why = lg::estimate::to_string(est.verdict);
      for (const auto& f : findings) {
        if (f.severity == lg::Severity::error) {
          why += " " + f.rule + ": " + f.message;
        }
      }
      misses.push_back(fmt::format("{} {} {} {} {} {}: {}", split_of(p.row), p.row.release, p.row.model, p.row.system,
                                   p.row.precision, key_of(p.row), why));
    }
  }
  double slowest = 0;
  std::vector<std::string> lines;
  for (const auto& [problem, members] : by_problem) {
    const auto [ranked, with_borderline] = search ? rank_layouts(members.front()->spec, true, problem)
                                                  : std::pair<Ranked, Ranked>{};
    slowest = std::max(slowest, ranked.seconds);
    std::map<std::string, const Predicted*> published;
    for (const Predicted* p : members) {
      published.emplace(key_of(p->row), p);
      if (g_dump != nullptr) {
        *g_dump << fmt::format("PUB,{},{},{},{},{},{},{},{},{},{},{:.6g},{:.6g}\n", problem, p->row.release, p->row.tp,
                               p->row.pp, p->row.vpp, p->row.cp, p->row.ep, p->row.mbs, p->row.fsdp > 0 ? 1 : 0,
                               fits_outright[p] ? 1 : 0, p->row.tokens, p->t.tokens_per_sec_per_gpu);
      }
    }
    for (const auto& [key, p] : published) {
      const int pos = ranked.position(key);
      const int pos_b = with_borderline.position(key);
      const bool in_top5 = pos >= 0 && pos < 5;
      const bool in_top5_b = pos_b >= 0 && pos_b < 5;
      // The published job as it ran (its recipe's dispatcher): the search
      // tries DeepEP itself, so its best may use the flex dispatcher too.
      const double own = p->t.tokens_per_sec_per_gpu;
      const double best = ranked.best;
      for (const std::string& g : groups_of(*p)) {
        ++tally[g].problems;
        tally[g].top5 += in_top5 ? 1 : 0;
        tally[g].within10 += best > 0 && own >= 0.9 * best ? 1 : 0;
        tally[g].searchable += fits_outright[p] ? 1 : 0;
        tally[g].searchable_top5 += fits_outright[p] && in_top5 ? 1 : 0;
        tally[g].top5_borderline += in_top5_b ? 1 : 0;
        tally[g].within10_borderline += with_borderline.best > 0 && own >= 0.9 * with_borderline.best ? 1 : 0;
      }
      auto rank_text = [](int position) { return position < 0 ? std::string("-") : std::to_string(position + 1); };
      lines.push_back(fmt::format("  {:<64} {:<30} rank {:>4} (with borderline {:>4})  published/best predicted "
                                  "{:5.1f}%  top: {}",
                                  problem, key, rank_text(pos), rank_text(pos_b), best > 0 ? 100 * own / best : 0.0,
                                  with_borderline.keys.empty() ? "-" : with_borderline.keys.front()));
    }
    for (std::size_t i = 0; i < members.size(); ++i) {
      for (std::size_t j = i + 1; j < members.size(); ++j) {
        const Predicted& a = *members[i];
        const Predicted& b = *members[j];
        if (key_of(a.row) == key_of(b.row) || a.row.tokens == b.row.tokens) {
          continue;
        }
        const bool same = (a.row.tokens > b.row.tokens) == (a.t.tokens_per_sec_per_gpu > b.t.tokens_per_sec_per_gpu);
        const bool one_table = a.row.release == b.row.release;
        for (const std::string& g : groups_of(a)) {
          ++tally[g].any_pairs;
          tally[g].any_ordered += same ? 1 : 0;
          tally[g].pairs += one_table ? 1 : 0;
          tally[g].ordered += one_table && same ? 1 : 0;
        }
      }
    }
  }
  fmt::print("\ntune on the published problems (problem = task, model, GPU, precision, GPUs, GBS, seq; "
             "per split):\n");
  if (verbose) {
    for (const auto& line : lines) {
      fmt::print("{}\n", line);
    }
  }
  fmt::print("  {:<24} {:>16} {:>14} {:>14} {:>16} {:>15} {:>18} {:>16} {:>16}\n", "group", "fit+rule-clean", "top 5",
             "top 5 if fits", "within 10% pred", "pairs ordered", "across releases", "top 5 +borderl.",
             "within 10% +b.");
  for (const auto& [group, t] : tally) {
    auto share = [](int part, int whole) {
      return whole > 0 ? fmt::format("{:.0f}%", percent(part, whole)) : std::string("-");
    };
    fmt::print(
      "  {:<24} {:>4}/{:<4} {:>4.0f}% {:>3}/{:<3} {:>4.0f}% {:>3}/{:<3} {:>4} {:>3}/{:<3} {:>6.0f}% {:>3}/{:<3} "
      "{:>5} {:>3}/{:<3} {:>8} {:>3}/{:<3} {:>6.0f}% {:>3}/{:<3} {:>6.0f}%\n",
      group, t.clean, t.layouts, percent(t.clean, t.layouts), t.top5, t.problems, percent(t.top5, t.problems),
      t.searchable_top5, t.searchable, share(t.searchable_top5, t.searchable), t.within10, t.problems,
      percent(t.within10, t.problems), t.ordered, t.pairs, share(t.ordered, t.pairs), t.any_ordered, t.any_pairs,
      share(t.any_ordered, t.any_pairs), t.top5_borderline, t.problems, percent(t.top5_borderline, t.problems),
      t.within10_borderline, t.problems, percent(t.within10_borderline, t.problems));
  }
  fmt::print(
    "  (fit = verdict fits or borderline; top 5 over distinct TP/PP/VPP/CP/EP/MBS/FSDP layouts; "
    "top 5 if fits: of the published layouts judged `fits` (tune prunes borderline ones); "
    "within 10%: the published layout's predicted tokens/s/GPU >= 90% of tune's best prediction; "
    "pairs: two layouts of one problem in one release's table (the Bridge tables publish none), across releases: "
    "in any two releases, whose measured figures also differ by software release; +borderline: the same "
    "over tune --borderline's ranking, which also ranks the layouts judged borderline, flagged)\n");
  fmt::print("  published layouts not judged fit and rule-clean: {}\n", misses.size());
  for (const auto& m : misses) {
    fmt::print("    {}\n", m);
  }
  fmt::print("  slowest search: {:.2f} s CPU\n", slowest);
}

// --classify: per problem and published layout that is not in tune's top 5
// (`fits` ranking), why: pruned (by the memory band, the rules, or never
// reached: outside the search space or pruned before the estimate), or ranked
// behind others and by which cost term (the published layout's best variant
// against the fastest candidate: the term where it pays most more), or tied
// with the fastest within k_resolution and put behind by the tie-break. The
// families are counted per split.
void classify(const std::vector<Predicted>& rows)
{
  std::map<std::string, std::vector<const Predicted*>> by_problem;
  for (const auto& p : rows) {
    by_problem[split_of(p.row) + "|" + problem_of(p.row)].push_back(&p);
  }
  std::map<std::string, std::map<std::string, int>> families;  // split -> family -> count
  fmt::print("\nclassification of the published layouts not in tune's top 5 (fits ranking):\n");
  for (const auto& [problem, members] : by_problem) {
    lg::tune::Request request;
    request.base = members.front()->spec;
    request.free = lg::tune::free_dimensions(request.base, {"all"}, true);
    request.borderline = true;
    const auto result = lg::tune::search(request);
    std::vector<lg::tune::Candidate> fits;
    for (const auto& c : result.candidates) {
      if (within_headroom(c, result)) {
        fits.push_back(c);
      }
    }
    lg::tune::rank(fits);
    const Ranked ranked = distinct(fits);
    const Ranked with_borderline = distinct(result.candidates);
    std::set<std::string> done;
    for (const Predicted* p : members) {
      const std::string key = key_of(p->row);
      if (!done.insert(key).second) {
        continue;
      }
      const std::string split = split_of(p->row);
      const int pos = ranked.position(key);
      const int pos_b = with_borderline.position(key);
      std::string fam;
      std::string detail;
      if (pos >= 0 && pos < 5) {
        fam = "top 5";
      } else if (pos < 0) {
        const auto est = lg::estimate::estimate(p->spec, {});
        const auto findings = lg::rules::check(p->spec, est);
        const double edge = (est.peak_bytes + est.band_bytes) / std::max(1.0, est.capacity_bytes);
        std::string rule;
        for (const auto& f : findings) {
          if (f.severity == lg::Severity::error) {
            rule = f.rule;
            break;
          }
        }
        if (!rule.empty()) {
          fam = "pruned: rule " + rule;
        } else if (est.verdict != lg::estimate::Verdict::fits) {
          fam = std::string("pruned: memory (") + lg::estimate::to_string(est.verdict) + ")";
          detail = fmt::format("peak {:.0f}% band edge {:.0f}% of capacity",
                               100 * est.peak_bytes / std::max(1.0, est.capacity_bytes), 100 * edge);
        } else if (edge > 0.90) {
          fam = "pruned: memory (band edge > 90%)";
          detail = fmt::format("band edge {:.0f}%", 100 * edge);
        } else if (pos_b >= 0) {
          fam = "pruned: search's variants borderline";
        } else {
          fam = "outside the search space / pruned before the estimate";
        }
      } else {
        const lg::tune::Candidate* own = nullptr;
        for (const auto& c : fits) {
          if (key_of(c.layout) == key) {
            own = &c;
            break;
          }
        }
        const lg::tune::Candidate& top = fits.front();
        const double rel = own->throughput.tokens_per_sec_per_gpu / ranked.best;
        std::string term = "?";
        double worst = -1e30;
        std::string terms;
        for (const auto& [name, v] : own->throughput.costs) {
          const double d = v - lg::throughput::cost(top.throughput, name);
          if (d > worst) {
            worst = d;
            term = name;
          }
          if (std::abs(d) > 1e-3 * own->throughput.step_time_s) {
            terms += fmt::format(" {}{:+.0f}", name, 1e3 * d);
          }
        }
        const auto est = lg::estimate::estimate(p->spec, {});
        if (rel >= 1 - lg::tune::k_resolution) {
          fam = "ranked: tie within resolution, behind by the tie-break";
        } else if (term == "recompute" && est.verdict != lg::estimate::Verdict::fits) {
          // The published layout (no such recompute) is judged borderline:
          // only a variant that recomputes more fits, and it pays for it.
          fam = std::string("memory band: published ") + lg::estimate::to_string(est.verdict)
                + ", only a recompute variant fits";
        } else {
          fam = "ranked: slower by " + term;
        }
        detail = fmt::format("{:.1f}% of best; vs top {} (ms/step):{}", 100 * rel, key_of(top.layout), terms);
      }
      ++families[split][fam];
      ++families[split]["all"];
      if (fam != "top 5") {
        fmt::print("  {:<11} {:<60} {:<28} rank {:>4} (+b {:>4})  {}  {}\n", split,
                   problem.substr(problem.find('|') + 1), key, pos < 0 ? std::string("-") : std::to_string(pos + 1),
                   pos_b < 0 ? std::string("-") : std::to_string(pos_b + 1), fam, detail);
      }
    }
  }
  for (const auto& [split, counts] : families) {
    fmt::print("  families, {}:\n", split);
    for (const auto& [fam, n] : counts) {
      fmt::print("    {:>3}  {}\n", n, fam);
    }
  }
}

// Speed: Llama 3.1 405B on 1024 H100, every layout of the space.
void speed(const lg::config::LoadOptions& options)
{
  const Row row = h100_fp8_problem("speed", "pretrain", "llama3.1-405b", 1024, 1536, 8192);
  const auto spec = lg::bench::row_spec(row, options);
  const Ranked ranked = rank_layouts(spec, false).first;
  fmt::print("\nspeed: Llama3.1-405B on 1024 x H100, whole space: {} layouts searched ({} estimated, {} "
             "candidates) in {:.3f} s (CPU time, one thread), best {}\n",
             ranked.searched, ranked.estimated, ranked.candidates, ranked.seconds,
             ranked.keys.empty() ? "-" : ranked.keys.front());
}

}  // namespace

int main(int argc, char** argv)
{
  if (argc < 3) {
    fmt::print(stderr, "usage: bench_tune <bridge_performance.json> <presets dir> [--calibrate] [--rows]\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    fmt::print(stderr, "bench_tune: cannot read {}\n", argv[1]);
    return 2;
  }
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::set<std::string> flags(argv + 3, argv + argc);
  lg::config::LoadOptions options;
  options.preset_dirs = {argv[2]};
  const auto& source = doc.at("source");
  fmt::print("source: {} {} @ {}\n", source.at("project").get<std::string>(), source.at("files").dump(),
             source.at("commit").get<std::string>());
  std::vector<Predicted> rows;
  std::string only;  // --only TEXT: the rows whose problem contains TEXT (a quicker look)
  for (int i = 3; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--only") {
      only = argv[i + 1];
    }
    if (std::string(argv[i]) == "--headroom") {
      g_headroom = std::stod(argv[i + 1]);
    }
  }
  for (const Row& row : lg::bench::read_rows(doc)) {
    if (!row.judged) {
      continue;  // no consistent layout in the row (corrections.cpp)
    }
    if (!only.empty() && row.problem().find(only) == std::string::npos) {
      continue;
    }
    Predicted p{row, lg::bench::row_spec(row, options), 0, {}, {}};
    p.dispatched = lg::bench::row_spec(row, options, true);
    p.t = lg::throughput::predict(p.dispatched);
    p.error = p.t.tokens_per_sec_per_gpu / row.tokens - 1;
    rows.push_back(std::move(p));
  }
  for (auto& p : rows) {
    p.judged = lg::bench::dispatcher_judged(p.row, options) ? &p.dispatched : &p.spec;
  }
  std::ofstream dump;
  for (int i = 3; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--dump") {
      dump.open(argv[i + 1]);
      g_dump = &dump;
    }
  }
  if (flags.count("--classify") != 0) {
    classify(rows);
    return 0;
  }
  if (flags.count("--speed") != 0) {
    speed(options);
    return 0;
  }
  guide(options);
  if (flags.count("--calibrate") != 0) {
    calibrate(rows);
    return 0;
  }
  std::map<std::string, std::vector<double>> by_split;
  for (const auto& p : rows) {
    const std::string split = calibration_release(p.row.release) ? "calibration" : "held-out";
    by_split[split].push_back(std::abs(p.error));
    by_split[split + " " + p.row.system].push_back(std::abs(p.error));
    by_split[split + (p.spec.model.moe ? " moe" : " dense")].push_back(std::abs(p.error));
    if (flags.count("--rows") != 0) {
      fmt::print("{:<9} {:<8} {:<16} {:<9} {:<7} {:>4} tp{} pp{} cp{} vp{} ep{} mbs{} fsdp{}  meas {:>6.0f}  pred "
                 "{:>6.0f}  {:+.1f}%  main {}\n",
                 p.row.release, p.row.task, p.row.model, p.row.system, p.row.precision, p.row.gpus, p.row.tp, p.row.pp,
                 p.row.cp, p.row.vpp, p.row.ep, p.row.mbs, p.row.fsdp, p.row.tokens, p.t.tokens_per_sec_per_gpu,
                 100 * p.error, p.t.main_cost);
    }
  }
  fmt::print("median |error| of predicted tokens/s/GPU on published layouts:\n");
  for (const auto& [split, errors] : by_split) {
    fmt::print("  {:<24} n={:>3}  median {:5.1f}%\n", split, errors.size(), 100 * median(errors));
  }
  speed(options);
  if (flags.count("--no-tune") == 0) {
    tune_bench(rows, flags.count("--rows") != 0 || flags.count("--ranks") != 0, flags.count("--no-search") == 0);
  }
  return 0;
}
