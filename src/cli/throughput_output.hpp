// Printing a throughput prediction: the JSON object `estimate --json` and
// `tune --json` carry, and the one-line human summary.
#pragma once

#include "throughput/throughput.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace lg::cli {

// { "step_time_s", "tflops_per_gpu", "tokens_per_sec_per_gpu" }.
nlohmann::json to_json(const throughput::Throughput& t);

// { "<term>": seconds, … } in the model's order.
nlohmann::json costs_json(const throughput::Throughput& t);

// "predicted 741 TFLOP/s/GPU, 1,650 tokens/s/GPU, step 19.86 s (main cost: tp_comm 6%)".
std::string throughput_line(const throughput::Throughput& t);

// One "  not calibrated: …" line per caveat of `t` (none when the
// calibration covers the job).
void print_caveats(const throughput::Throughput& t);

} // namespace lg::cli
