// Preflight speed: how long one check of a job takes, and how many job
// variants the estimator judges per second. Prints figures; asserts nothing.
//
//   bench_preflight JOB.toml PRESET_DIR [VARIANTS]
#include "config/job_spec.hpp"
#include "config/loader.hpp"
#include "estimate/estimate.hpp"
#include "preflight/judge.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start)
{
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The i-th variant of `base`: a different layout, batch and sequence length.
lg::config::JobSpec variant(const lg::config::JobSpec& base, int i)
{
  static const int tps[] = {1, 2, 4, 8};
  static const int pps[] = {1, 2, 4, 8};
  static const int seqs[] = {2048, 4096, 8192, 16384};
  lg::config::JobSpec spec = base;
  spec.parallelism.tp = tps[i % 4];
  spec.parallelism.pp = pps[(i / 4) % 4];
  spec.parallelism.vpp.reset();
  spec.model.seq_length = seqs[(i / 16) % 4];
  spec.training.micro_batch_size = 1 + (i / 64) % 4;
  spec.training.recompute.granularity = static_cast<lg::config::RecomputeGranularity>((i / 256) % 3);
  return spec;
}

} // namespace

int main(int argc, char** argv)
{
  if (argc < 3) {
    fmt::print(stderr, "usage: bench_preflight JOB.toml PRESET_DIR [VARIANTS]\n");
    return 2;
  }
  const int variants = argc > 3 ? std::atoi(argv[3]) : 10000;
  lg::config::LoadOptions options;
  options.preset_dirs = {argv[2]};

  // One full check (load + estimate with what-if + rules), best of 20 runs.
  std::vector<double> times;
  std::size_t findings = 0;
  for (int run = 0; run < 20; ++run) {
    const auto start = Clock::now();
    const auto spec = lg::config::load_job_file(argv[1], options);
    findings = lg::preflight::judge(spec).findings.size();
    times.push_back(seconds_since(start));
  }
  std::sort(times.begin(), times.end());
  fmt::print("check {} (load + preflight::judge: environment, estimate, what-if, rules; in process): median {:.3f} ms, best {:.3f} ms, "
             "{} findings\n",
             argv[1], times[times.size() / 2] * 1e3, times.front() * 1e3, findings);

  // Many variants, estimate only (what-if off, as a layout search would).
  const auto base = lg::config::load_job_file(argv[1], options);
  const lg::estimate::Options fast;
  double checksum = 0;
  const auto start = Clock::now();
  for (int i = 0; i < variants; ++i) {
    checksum += lg::estimate::estimate(variant(base, i), fast).peak_bytes;
  }
  const double elapsed = seconds_since(start);
  fmt::print("{} job variants estimated in {:.3f} s ({:.1f} us each; checksum {:.3e})\n", variants, elapsed,
             elapsed / variants * 1e6, checksum);
  return 0;
}
