// The throughput model: predicted time of one training step of a job, as the
// sum of named costs on the critical path (compute of the slowest pipeline
// stage, recompute, exposed TP/CP/EP communication, pipeline bubble and
// point-to-point, exposed DP/FSDP collectives, activation offload, optimizer
// step), and the Model TFLOP/s/GPU and tokens/s/GPU that follow. Rates come
// from systems.hpp. Pure: no I/O.
#pragma once

#include "config/job_spec.hpp"

#include <string>
#include <utility>
#include <vector>

namespace lg::throughput {

struct Throughput
{
  double step_time_s = 0;
  double tflops_per_gpu = 0;          // Model TFLOP/s per GPU (Bridge's FLOP count)
  double tokens_per_sec_per_gpu = 0;
  double model_flops_per_step = 0;
  // Seconds per step, in this order, summing to step_time_s: compute,
  // recompute, tp_comm, cp_comm, ep_comm, launch, pp_bubble, pp_p2p, dp_comm,
  // fsdp_comm, offload, optimizer.
  std::vector<std::pair<std::string, double>> costs;
  std::string main_cost;  // the largest term other than compute
  std::vector<std::string> assumptions;
  // What the calibration does not cover for this job (coverage.hpp).
  std::vector<std::string> caveats;
};

// Predict one step of `spec`. Never throws for a spec that passed config
// validation; degenerate sizes give a best-effort figure.
Throughput predict(const config::JobSpec& spec);

struct SystemRates;
// Same with explicit rates instead of the table's (calibration, tests).
Throughput predict(const config::JobSpec& spec, const SystemRates& rates);

// Return the value of cost `name` in `t` (0 when absent).
double cost(const Throughput& t, const std::string& name);

} // namespace lg::throughput
