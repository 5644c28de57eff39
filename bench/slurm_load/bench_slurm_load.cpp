// Load on Slurm while one session watches N jobs: how many Slurm questions
// the watch session asks per minute (FakeClient, simulated clock, 1 hour).
// The real figures, N concurrent launchguard processes against the local
// cluster counted through wrappers on PATH, come from run.sh.
//
// Prints figures; asserts nothing.
#include "slurm/client.hpp"
#include "slurm/fake_client.hpp"
#include "watch/clock.hpp"
#include "watch/session.hpp"

#include <fmt/core.h>

#include <chrono>
#include <string>
#include <vector>

namespace {

using std::chrono::milliseconds;

// Simulate `minutes` of watching `jobs` jobs that stay RUNNING, with one
// state change per job every `change_every` minutes (0: never).
void simulate(int jobs, int minutes)
{
  lg::slurm::FakeClient client;
  std::vector<std::string> ids;
  for (int i = 0; i < jobs; ++i) {
    lg::slurm::SubmitOptions options;
    options.tag = "bench";
    ids.push_back(client.submit_text("#!/bin/bash\n", options));
    client.script_states(ids.back(), std::vector<lg::slurm::JobState>{lg::slurm::JobState::pending,
                                                                      lg::slurm::JobState::running});
  }
  lg::watch::ManualClock clock;
  lg::watch::Session session(
    [&client](std::span<const lg::slurm::JobId> asked, milliseconds) { return client.query(asked); }, clock, {});
  for (const auto& id : ids) {
    session.add(id);
  }
  const auto start = clock.now();
  long first_minute = -1;
  session.run([&](const lg::watch::Cycle&) {
    if (first_minute < 0 && clock.now() - start >= std::chrono::minutes(1)) {
      first_minute = session.queries();
    }
    return clock.now() - start < std::chrono::minutes(minutes);
  });
  // A naive launcher: one squeue per job every 10 s (torchx's `--wait` polls
  // each job every second; the complaints: submitit#1759, Snakemake-Profiles/slurm#74).
  const double naive = static_cast<double>(jobs) * 6.0;
  fmt::print("simulated {:>3} job(s), {} min: {:>3} queries in all, {:.2f}/min average, {} in the first minute; "
             "naive per-job polling every 10 s: {:.0f}/min\n",
             jobs, minutes, session.queries(), static_cast<double>(session.queries()) / minutes, first_minute,
             naive);
}

} // namespace

int main(int argc, char** argv)
{
  const std::string mode = argc > 1 ? argv[1] : "simulate";
  if (mode == "simulate") {
    for (int jobs : {1, 10, 100}) {
      simulate(jobs, 60);
    }
    return 0;
  }
  fmt::print(stderr, "usage: bench_slurm_load [simulate]\n");
  return 2;
}
