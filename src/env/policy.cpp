// The environment-policy rows that a job's features decide (each row cites
// its upstream source). Rows
// the JobSpec cannot decide yet (HybridEP NVLink domain, GTP node priority,
// deterministic mode) and deployment-owned fabric settings (NCCL_NET_GDR_*)
// are deliberately absent; users set those in [env].
#include "env/policy.hpp"

#include "env/allocator_conf.hpp"
#include "env/flight_recorder.hpp"

#include <fmt/format.h>

#include <array>

namespace lg::env {

JobFeatures features_of(const config::JobSpec& spec)
{
  JobFeatures f;
  f.generation = spec.cluster.gpu_info.generation;
  f.gpu_name = spec.cluster.gpu_info.name.empty() ? spec.cluster.gpu : spec.cluster.gpu_info.name;
  f.framework = spec.launch.framework;
  f.model_preset = spec.model.preset;
  f.tp = spec.parallelism.tp;
  f.cp = spec.parallelism.cp;
  f.pp = spec.parallelism.pp;
  f.ep = spec.parallelism.ep;
  const auto& t = spec.training;
  f.fsdp = t.fsdp != config::Fsdp::none;
  f.ep_a2a_overlap = t.overlap_moe_expert_parallel_comm;
  f.flex_dispatcher = spec.model.moe && spec.model.moe->token_dispatcher == "flex";
  f.cuda_graphs = t.cuda_graphs;
  f.nccl_ub = t.nccl_ub;
  f.fine_grained_offloading = t.fine_grained_activation_offloading;
  f.comm_overlap = t.tp_comm_overlap || t.overlap_grad_reduce;
  f.nvfp4 = t.precision == config::Precision::nvfp4;
  f.flight_recorder_prefix = flight_recorder_prefix(spec.launch);
  return f;
}

bool is_blackwell_or_newer(const JobFeatures& features)
{
  return features.generation == config::GpuGeneration::blackwell;
}

std::string tp_cp_text(const JobFeatures& features)
{
  if (features.tp > 1 && features.cp > 1) {
    return fmt::format("TP={} CP={}", features.tp, features.cp);
  }
  return features.cp > 1 ? fmt::format("CP={}", features.cp) : fmt::format("TP={}", features.tp);
}

namespace {

// Full-iteration graphs, or fine-grained offloading with any graphs: both
// want graph_capture_record_stream_reuse and TORCH_NCCL_AVOID_RECORD_STREAMS=0.
bool wants_capture_stream_reuse(const JobFeatures& f)
{
  return f.cuda_graphs == config::CudaGraphs::full_iteration
         || (f.cuda_graphs != config::CudaGraphs::none && f.fine_grained_offloading);
}

} // namespace

Decision policy_alloc_conf(const JobFeatures& f)
{
  AllocConf conf;
  std::vector<std::string> reasons;
  std::string citation;
  if (f.nccl_ub) {
    reasons.emplace_back(
      "expandable_segments left out: NCCL user buffers are on and MCore raises "
      "\"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True is currently not supported with "
      "nccl_ub due to compatibility issue with torch.cuda.MemPool API.\" (torch < 2.11)");
    citation = "[ML] megatron/core/distributed/distributed_data_parallel_config.py:262-267; "
               "[MB-old] scripts/performance/perf_plugins.py:314-319";
  } else {
    conf.set("expandable_segments", "True");
    reasons.emplace_back("expandable_segments:True removes allocator fragmentation at zero "
                         "throughput cost (Llama3-70B SFT on 32xH100: a 58.8 GB OOM became a pass)");
    citation = "[MB] src/megatron/bridge/recipes/utils/environment_utils.py:22-33; "
               "[SK] nemo-mbridge-perf-memory-tuning/SKILL.md:15-25,53-55,190-194";
  }
  if (wants_capture_stream_reuse(f)) {
    conf.set("graph_capture_record_stream_reuse", "True");
    reasons.emplace_back("graph_capture_record_stream_reuse:True lets freed buffers be reused "
                         "during full-iteration graph capture, lowering peak memory");
    citation += "; [MB-old] scripts/performance/perf_plugins.py:298-306; "
                "[MB] src/megatron/bridge/perf_recipes/llama/b200/llama3.py:57-70";
  }
  Decision d;
  d.rule = f.nccl_ub ? "env.nccl_ub_expandable_segments" : "env.expandable_segments";
  d.value = format_alloc_conf(conf);
  d.unset = conf.empty();
  d.citation = citation;
  for (const auto& reason : reasons) {
    d.reason += (d.reason.empty() ? "" : "; ") + reason;
  }
  return d;
}

namespace {

std::optional<Decision> alloc_row(const JobFeatures& f)
{
  return policy_alloc_conf(f);
}

std::optional<Decision> connections_row(const JobFeatures& f)
{
  return decide_connections(f);
}

std::optional<Decision> graph_register_row(const JobFeatures& f)
{
  if (!f.expandable_segments || f.cuda_graphs == config::CudaGraphs::none) {
    return std::nullopt;
  }
  return Decision{"0", "env.nccl_graph_register",
                  "expandable_segments with CUDA graphs: \"Setting NCCL_GRAPH_REGISTER=0 to avoid "
                  "illegal memory access when using CUDA Graph with "
                  "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.\" (asserted for "
                  "transformer_engine graphs on every arch)",
                  "[ML] megatron/training/arguments.py:1961-1968; "
                  "[ML] megatron/core/transformer/cuda_graphs.py:2193-2199; "
                  "[MB] src/megatron/bridge/recipes/utils/environment_utils.py:23-25"};
}

std::optional<Decision> record_streams_row(const JobFeatures& f)
{
  if (wants_capture_stream_reuse(f)) {
    return Decision{"0", "env.torch_nccl_avoid_record_streams",
                    "CUDA graph capture with stream reuse: 0, always paired with "
                    "graph_capture_record_stream_reuse",
                    "[MB-old] scripts/performance/perf_plugins.py:298-306"};
  }
  return Decision{"1", "env.torch_nccl_avoid_record_streams",
                  "avoids preserving NCCL comm buffers, which lowers memory (every recipe)",
                  "[MB] docs/performance-guide.md:358-363; "
                  "[MB] src/megatron/bridge/recipes/utils/environment_utils.py:30-31"};
}

std::optional<Decision> nvls_row(const JobFeatures& f)
{
  if (f.nccl_ub) {
    return Decision{"1", "env.nccl_nvls_enable",
                    "NCCL user buffers use NVLS symmetric kernels",
                    "[MB] scripts/performance/utils/utils.py:338-352; "
                    "[MB] scripts/performance/utils/overrides.py:299-301"};
  }
  return Decision{"0", "env.nccl_nvls_enable", "disables NVLink SHARP when not used, saving memory",
                  "[MB] docs/performance-guide.md:358-363; "
                  "[MB-old] scripts/performance/utils/executors.py:91"};
}

std::optional<Decision> cta_policy_row(const JobFeatures& f)
{
  if (!f.nccl_ub) {
    return std::nullopt;
  }
  return Decision{"1", "env.nccl_cta_policy", "symmetric-kernel tuning with NCCL user buffers",
                  "[MB] scripts/performance/utils/utils.py:349; "
                  "[MB-old] scripts/performance/perf_plugins.py:323-327"};
}

std::optional<Decision> high_priority_row(const JobFeatures&)
{
  return Decision{"1", "env.torch_nccl_high_priority",
                  "\"Run NCCL work on its high-priority stream for every measured workload.\"",
                  "[MB] src/megatron/bridge/perf_recipes/environment.py:22-26; "
                  "[MB] src/megatron/bridge/recipes/utils/environment_utils.py:32"};
}

std::optional<Decision> sm_margin_row(const JobFeatures& f)
{
  if (!f.comm_overlap) {
    return std::nullopt;
  }
  return Decision{f.flex_dispatcher ? "20" : "16", "env.nvte_layernorm_sm_margin",
                  "TP/DP comm overlap: persistent TE LayerNorm kernels occupy every SM; the margin "
                  "reserves SMs for the overlapped collective (20 with DeepEP/HybridEP)",
                  "[MB-old] scripts/performance/perf_plugins.py:356-365,530-534; "
                  "[MB] docs/performance-guide.md:179-184,751-754"};
}

std::optional<Decision> cpu_offload_v1_row(const JobFeatures& f)
{
  if (!f.fine_grained_offloading) {
    return std::nullopt;
  }
  return Decision{"1", "env.nvte_cpu_offload_v1",
                  "fine-grained activation offloading: \"For fine-grained activation offloading "
                  "with TE >= 2.10.0, NVTE_CPU_OFFLOAD_V1 should be set to 1 to avoid offloading "
                  "weights.\"",
                  "[ML] megatron/training/arguments.py:1935-1940; "
                  "[MB] src/megatron/bridge/training/config.py:2182-2215"};
}

std::optional<Decision> fast_math_row(const JobFeatures& f)
{
  if (!f.nvfp4) {
    return std::nullopt;
  }
  return Decision{"1", "env.nvte_use_fast_math", "NVFP4 compute: fast math (perf)",
                  "[MB-old] scripts/performance/perf_plugins.py:566-568"};
}

std::optional<Decision> cpu_affinity_row(const JobFeatures& f)
{
  if (f.gpu_name.find("b300") == std::string::npos) {
    return std::nullopt;
  }
  return Decision{"1", "env.nccl_ignore_cpu_affinity", "B300: NCCL CPU affinity tuning (perf)",
                  "[MB-old] scripts/performance/perf_plugins.py:353-354"};
}

bool is_large_llama3(const std::string& preset)
{
  const bool llama3 = preset.rfind("llama3", 0) == 0;
  return llama3
         && (preset.find("70b") != std::string::npos || preset.find("405b") != std::string::npos);
}

std::optional<Decision> p2p_chunk_row(const JobFeatures& f)
{
  if (f.pp <= 1 || !is_large_llama3(f.model_preset)) {
    return std::nullopt;
  }
  return Decision{"2097152", "env.nccl_p2p_net_chunksize",
                  "PP > 1 on Llama3 70B/405B: pipeline P2P chunk size tuning",
                  "[MB] scripts/performance/utils/overrides.py:285-297; "
                  "[MB-old] scripts/performance/perf_plugins.py:391-400,545-552"};
}

std::optional<Decision> nondeterministic_row(const JobFeatures& f)
{
  if (f.model_preset.rfind("deepseek", 0) == 0) {
    return Decision{"0", "env.nvte_allow_nondeterministic_algo",
                    "DeepSeek family: deterministic TE algorithms",
                    "[MB-old] scripts/performance/perf_plugins.py:243-248,295-296"};
  }
  return Decision{"1", "env.nvte_allow_nondeterministic_algo",
                  "the Slurm templates allow TE's faster non-deterministic algorithms",
                  "[SK] nemo-mbridge-multi-node-slurm/references/templates.md; "
                  "[SK] nemo-mbridge-perf-memory-tuning/SKILL.md:83-85"};
}

constexpr std::array k_rows = {
  PolicyRow{"CUDA_DEVICE_MAX_CONNECTIONS", connections_row},
  PolicyRow{k_alloc_conf, alloc_row},
  PolicyRow{"NCCL_GRAPH_REGISTER", graph_register_row},
  PolicyRow{"TORCH_NCCL_AVOID_RECORD_STREAMS", record_streams_row},
  PolicyRow{"NCCL_NVLS_ENABLE", nvls_row},
  PolicyRow{"NCCL_CTA_POLICY", cta_policy_row},
  PolicyRow{"TORCH_NCCL_HIGH_PRIORITY", high_priority_row},
  PolicyRow{"NVTE_FWD_LAYERNORM_SM_MARGIN", sm_margin_row},
  PolicyRow{"NVTE_BWD_LAYERNORM_SM_MARGIN", sm_margin_row},
  PolicyRow{"NVTE_CPU_OFFLOAD_V1", cpu_offload_v1_row},
  PolicyRow{"NVTE_USE_FAST_MATH", fast_math_row},
  PolicyRow{"NCCL_IGNORE_CPU_AFFINITY", cpu_affinity_row},
  PolicyRow{"NCCL_P2P_NET_CHUNKSIZE", p2p_chunk_row},
  PolicyRow{"NVTE_ALLOW_NONDETERMINISTIC_ALGO", nondeterministic_row},
  PolicyRow{"TORCH_NCCL_TRACE_BUFFER_SIZE", flight_recorder_buffer_row},
  PolicyRow{"TORCH_NCCL_DUMP_ON_TIMEOUT", flight_recorder_dump_row},
  PolicyRow{"TORCH_NCCL_DEBUG_INFO_TEMP_FILE", flight_recorder_file_row},
};

} // namespace

std::span<const PolicyRow> policy_rows()
{
  return k_rows;
}

} // namespace lg::env
