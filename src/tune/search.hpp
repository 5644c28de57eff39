// The search behind `launchguard tune`: enumerate the layout space, prune
// with the memory model (the peak's upper edge must fit within the headroom
// of the verdict rule) and with the same rules as `check`, rank the survivors
// by predicted throughput, and mark the memory vs throughput Pareto front.
// Pure: no I/O.
#pragma once

#include "config/job_spec.hpp"
#include "estimate/estimate.hpp"
#include "throughput/throughput.hpp"
#include "tune/layout.hpp"
#include "tune/space.hpp"

#include <optional>
#include <vector>

namespace lg::tune {

// Predictions closer than this fraction of the faster one are ties: the
// throughput model does not resolve them. It is the model's demonstrated
// resolution, its median |error| on the calibration split of
// bench/tune (Megatron Bridge releases 25.09 + 25.11: 5.7%), rounded up
// (docs/tune.md, "Ranking"); a ranking finer than that is noise.
constexpr double k_resolution = 0.06;

// check's verdict rule keeps 10% of the capacity free at the band's upper
// edge; tune keeps as much unless told otherwise.
constexpr double k_default_headroom = 0.10;

struct Request
{
  config::JobSpec base;     // the job (or the spec built from --model/--gpu/…)
  Free free;                // what may change
  bool expandable_segments = true;  // from the job's composed environment
  // Also rank layouts the estimate judges `borderline` (the band straddles the
  // headroom; tuned runs near capacity sit there), flagged by their verdict.
  // Off: only `fits` layouts survive (docs/tune.md, "Pruning").
  bool borderline = false;
  // The share of the GPU's capacity the band's upper edge must leave free
  // (tune --headroom). The default is the verdict rule's: `fits` = the upper
  // edge within 90% of capacity (estimate.cpp).
  double headroom = k_default_headroom;
};

struct Candidate
{
  Layout layout;
  double peak_bytes = 0;   // device peak of the most loaded stage
  double band_bytes = 0;   // upper edge of the estimate's band: peak_bytes + the band
  std::vector<double> stage_peaks;  // per pipeline rank
  estimate::Verdict verdict = estimate::Verdict::fits;
  int warnings = 0;        // rule warnings (errors prune)
  throughput::Throughput throughput;
  double relative = 1;     // tokens/s/GPU relative to the best
  bool pareto = false;     // on the memory vs throughput front
};

struct Result
{
  long searched = 0;
  long pruned_by_rules = 0;
  long pruned_by_memory = 0;
  long estimated = 0;  // layouts the memory estimate ran on (the rest pruned before it)
  long borderline = 0;  // candidates judged borderline (only with Request::borderline)
  // Every survivor, best first: by predicted throughput, ties within
  // k_resolution broken by the simpler layout (docs/tune.md, "Ranking").
  std::vector<Candidate> candidates;
  std::vector<RecomputeChoice> recompute_choices;
  OverlapKeep keep;
  double capacity_bytes = 0;
  // Judged (fits or borderline) but over the headroom, so pruned: how many,
  // and the fastest of them that breaks no rule (its prediction; verdict
  // borderline), which the CLI names when it beats the best candidate.
  long over_headroom = 0;
  std::optional<Candidate> fastest_over_headroom;
};

Result search(const Request& request);

// Order `candidates` as search() does: by predicted tokens/s/GPU, ties within
// k_resolution broken by the simpler layout; set `relative` and `pareto`.
void rank(std::vector<Candidate>& candidates);

// The full job of `candidate`: the request's base with the layout applied.
config::JobSpec spec_of(const Request& request, const Result& result, const Candidate& candidate);

} // namespace lg::tune
