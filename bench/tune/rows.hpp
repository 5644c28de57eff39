// Rows of bridge_performance.json (parsed from the Megatron Bridge performance
// summaries) and the JobSpec each published layout stands for.
#pragma once

#include "config/job_spec.hpp"
#include "config/loader.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace lg::bench {

struct Row
{
  std::string release, task, model, label, system, precision;
  int gpus = 0, gbs = 0, mbs = 0, seq = 0, fsdp = 0, tp = 1, pp = 1, cp = 1, vpp = 0, ep = 1;
  double tokens = 0;  // measured tokens/s/GPU
  double tflops = 0;  // measured Model TFLOP/s/GPU
  bool without_mtp = false;
  // Set by read_rows for a row that contradicts its table or its release's
  // configs (corrections.cpp): what was changed and why, whether it is judged
  // at all, and [training] lines the release's config adds.
  std::string corrected;
  bool judged = true;
  std::string extra_training;
  std::string problem() const;  // release|task|model|system|precision|gpus|gbs|seq
};

// The release config's layout for a row that contradicts it (corrections.cpp).
void apply_correction(Row& row);

std::vector<Row> read_rows(const nlohmann::json& doc);

// The job text of a published layout under the Bridge performance recipes'
// settings (SP with TP, TP/DP overlap, distributed optimizer, bf16 grads).
// `dispatcher`: also the recipe's token dispatcher and its overlap
// (recipes.hpp, `moe`), which the recipe sets for one layout of the problem:
// the throughput prediction of the published row reads it, and the fit check
// where the estimate models its buffers (DeepEP; HybridEP is `unknown`);
// tune's search runs without it.
std::string job_text(const Row& row, bool dispatcher = false);

config::JobSpec row_spec(const Row& row, const config::LoadOptions& options, bool dispatcher = false);

// Whether a memory judgement of the published job reads the recipe's
// dispatcher: where the estimate models its buffers (the dispatcher adds
// nothing to config::not_modelled).
bool dispatcher_judged(const Row& row, const config::LoadOptions& options);

// GPUs per node of a system (4 on GB200/GB300 trays, 8 on DGX boards).
int gpus_per_node(const std::string& system);

} // namespace lg::bench
