// CUDA_DEVICE_MAX_CONNECTIONS, decided the way Megatron Bridge decides it ([MB] scripts/performance/utils/overrides.py:248-263),
// with the hard overlays from MLM and Bridge: never 1 under FSDP; exactly 1
// for TP/CP on pre-Blackwell (an MLM assertion) unless FSDP or EP A2A overlap.
#include "env/policy.hpp"

namespace lg::env {

namespace {

constexpr const char* k_cite_flex =
  "[MB] scripts/performance/utils/overrides.py:256-260; "
  "[SK] nemo-mbridge-perf-moe-dispatcher-selection/card.yaml:73-75";
constexpr const char* k_cite_blackwell =
  "[MB-old] scripts/performance/perf_plugins.py:260-268; "
  "[MB] scripts/performance/utils/overrides.py:256-260; "
  "[ML] megatron/training/arguments.py:1453-1455";
constexpr const char* k_cite_tp_cp =
  "[ML] megatron/training/arguments.py:1453-1479; "
  "[ML] megatron/core/tensor_parallel/layers.py:908-924; "
  "[MB] scripts/performance/utils/overrides.py:258-263";
constexpr const char* k_cite_fsdp =
  "[ML] megatron/training/arguments.py:1048-1049,1166-1167,1456-1465; "
  "[MB] src/megatron/bridge/training/config.py:1110-1112";
constexpr const char* k_cite_default =
  "[MB-old] scripts/performance/perf_plugins.py:260,271; "
  "[MB] scripts/performance/utils/overrides.py:258";
constexpr const char* k_cite_ep_overlap =
  "[ML] megatron/core/transformer/moe/README.md:437; "
  "[ML] megatron/training/arguments.py:1466-1475";

} // namespace

Decision decide_connections(const JobFeatures& f)
{
  Decision d;
  if (f.flex_dispatcher) {
    d = {"32", "env.cuda_device_max_connections_flex",
         "MoE flex dispatcher (DeepEP/HybridEP) needs extra connections", k_cite_flex};
  } else {
    d = {"8", "env.cuda_device_max_connections_default",
         "CUDA default (8): no TP/CP overlap ordering to enforce", k_cite_default};
  }
  const bool tp_or_cp = f.tp > 1 || f.cp > 1;
  if (is_blackwell_or_newer(f)) {
    d = {"32", "env.cuda_device_max_connections_blackwell",
         "Blackwell+: \"We need extra connections to avoid serialization of streams, "
         "so we use max connections of 32 instead of the default device connection of 8\"; "
         "the =1 requirement \"no longer exists since the Blackwell architecture\"",
         k_cite_blackwell};
  } else if (tp_or_cp && !f.ep_a2a_overlap) {
    d = {"1", "env.cuda_device_max_connections_tp_cp",
         "TP/CP > 1 before Blackwell: host issue order must equal GPU execution order so "
         "the TP/CP comm kernel overlaps the GEMM; MLM asserts \"Using tensor model "
         "parallelism or context parallelism require setting the environment variable "
         "CUDA_DEVICE_MAX_CONNECTIONS to 1\"",
         k_cite_tp_cp};
  } else if (tp_or_cp && f.ep_a2a_overlap) {
    d.reason += "; EP A2A overlap needs CUDA_DEVICE_MAX_CONNECTIONS > 1 (MoE README), "
                "so the TP/CP rule does not apply";
    d.citation += std::string("; ") + k_cite_ep_overlap;
  }
  if (f.fsdp && d.value == "1") {
    d = {"8", "env.cuda_device_max_connections_fsdp",
         "FSDP: \"FSDP requires CUDA_DEVICE_MAX_CONNECTIONS > 1 or unset.\" Set to the "
         "CUDA default explicitly so a value inherited from the shell or image cannot win",
         k_cite_fsdp};
  }
  return d;
}

} // namespace lg::env
