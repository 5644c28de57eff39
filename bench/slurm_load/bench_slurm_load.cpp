// Load on Slurm while watching N jobs: how many Slurm commands launchguard's
// poller issues per minute.
//
//   bench_slurm_load simulate            FakeClient, simulated clock, 1 hour
//   bench_slurm_load real BIN_DIR SECONDS JOB_ID…
//       the real Slurm tools through BIN_DIR (a directory of wrappers that
//       count invocations, see run.sh), real time
//
// Prints figures; asserts nothing.
#include "slurm/client.hpp"
#include "slurm/fake_client.hpp"
#include "watch/poller.hpp"

#include <fmt/core.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
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
  lg::watch::Poller poller(client, lg::watch::PollSchedule{});
  for (const auto& id : ids) {
    poller.add(id);
  }
  milliseconds now{0};
  milliseconds delay = lg::watch::PollSchedule{}.first;
  const milliseconds end = std::chrono::minutes(minutes);
  long first_minute = -1;
  while (now + delay <= end) {
    now += delay;
    const auto result = poller.poll();
    if (first_minute < 0 && now >= std::chrono::minutes(1)) {
      first_minute = poller.commands();
    }
    delay = poller.next_delay(result);
  }
  // A naive launcher: one squeue per job every 10 s (launchers.md §3).
  const double naive = static_cast<double>(jobs) * 6.0;
  fmt::print("simulated {:>3} job(s), {} min: {:>3} queries in all, {:.2f}/min average, {} in the first minute; "
             "naive per-job polling every 10 s: {:.0f}/min\n",
             jobs, minutes, poller.commands(), static_cast<double>(poller.commands()) / minutes, first_minute,
             naive);
}

void real(const std::string& bin_dir, int seconds, const std::vector<std::string>& ids)
{
  lg::slurm::ClientOptions options;
  options.bin_dir = bin_dir;
  const auto client = lg::slurm::make_cli_client(options);
  lg::watch::Poller poller(*client, lg::watch::PollSchedule{});
  for (const auto& id : ids) {
    poller.add(id);
  }
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::seconds(seconds);
  milliseconds delay = lg::watch::PollSchedule{}.first;
  while (std::chrono::steady_clock::now() + delay < end) {
    std::this_thread::sleep_for(delay);
    delay = poller.next_delay(poller.poll());
  }
  std::this_thread::sleep_until(end);
  fmt::print("real cluster: {:>3} job(s) watched {} s: {} poll cycle(s)\n", ids.size(), seconds, poller.commands());
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
  if (mode == "real" && argc >= 5) {
    std::vector<std::string> ids(argv + 4, argv + argc);
    real(argv[2], std::atoi(argv[3]), ids);
    return 0;
  }
  fmt::print(stderr, "usage: bench_slurm_load simulate | real BIN_DIR SECONDS JOB_ID…\n");
  return 2;
}
