// Each policy row of src/env/policy.cpp (and connections.cpp), decided across GPU generation
// x parallelism x features.
#include "env/compose.hpp"
#include "env/policy.hpp"
#include "support/builders.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace lg;

namespace {

// The composed value of `name`, "<unset>" for an unset action, "<absent>".
std::string value_of(const env::Environment& environment, const char* name)
{
  const env::Variable* v = environment.find(name);
  if (v == nullptr) {
    return "<absent>";
  }
  return v->action == env::Action::unset ? "<unset>" : v->value;
}

std::string compose_value(const config::JobSpec& spec, const char* name)
{
  return value_of(env::compose(spec, {}), name);
}

struct ConnectionsCase
{
  const char* gpu;
  int tp;
  int cp;
  config::Fsdp fsdp;
  bool a2a_overlap;
  bool flex;
  const char* expected;
  const char* rule;
};

} // namespace

TEST_CASE("CUDA_DEVICE_MAX_CONNECTIONS follows A.2 with the hard overlays")
{
  using config::Fsdp;
  const ConnectionsCase cases[] = {
    {"a100-80gb", 4, 1, Fsdp::none, false, false, "1", "env.cuda_device_max_connections_tp_cp"},
    {"a100-80gb", 1, 1, Fsdp::none, false, false, "8", "env.cuda_device_max_connections_default"},
    {"h100-80gb", 1, 2, Fsdp::none, false, false, "1", "env.cuda_device_max_connections_tp_cp"},
    {"h100-80gb", 1, 1, Fsdp::none, false, false, "8", "env.cuda_device_max_connections_default"},
    {"h100-80gb", 1, 1, Fsdp::none, false, true, "32", "env.cuda_device_max_connections_flex"},
    {"h100-80gb", 2, 1, Fsdp::none, false, true, "1", "env.cuda_device_max_connections_tp_cp"},
    {"h100-80gb", 2, 1, Fsdp::none, true, false, "8", "env.cuda_device_max_connections_default"},
    {"h100-80gb", 2, 1, Fsdp::none, true, true, "32", "env.cuda_device_max_connections_flex"},
    {"h100-80gb", 4, 1, Fsdp::megatron, false, false, "8", "env.cuda_device_max_connections_fsdp"},
    {"a100-80gb", 2, 2, Fsdp::torch, false, false, "8", "env.cuda_device_max_connections_fsdp"},
    {"b200", 4, 1, Fsdp::none, false, false, "32", "env.cuda_device_max_connections_blackwell"},
    {"gb200", 1, 1, Fsdp::megatron, false, false, "32", "env.cuda_device_max_connections_blackwell"},
    {"b300", 8, 2, Fsdp::none, true, false, "32", "env.cuda_device_max_connections_blackwell"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.gpu);
    CAPTURE(c.tp);
    CAPTURE(c.cp);
    CAPTURE(static_cast<int>(c.fsdp));
    CAPTURE(c.a2a_overlap);
    CAPTURE(c.flex);
    auto spec = testing::minimal_job_spec();
    spec.cluster.gpu_info = testing::gpu(c.gpu);
    spec.parallelism.tp = c.tp;
    spec.parallelism.cp = c.cp;
    spec.training.fsdp = c.fsdp;
    spec.training.overlap_moe_expert_parallel_comm = c.a2a_overlap;
    if (c.flex) {
      config::MoeSpec moe;
      moe.num_experts = 8;
      moe.token_dispatcher = "flex";
      spec.model.moe = moe;
    }
    const auto environment = env::compose(spec, {});
    const env::Variable* v = environment.find("CUDA_DEVICE_MAX_CONNECTIONS");
    REQUIRE(v != nullptr);
    CHECK(v->value == c.expected);
    CHECK(v->rule == c.rule);
    CHECK(v->layer == env::Layer::policy);
    CHECK_FALSE(v->citation.empty());
    CHECK(environment.findings.empty());
  }
}

TEST_CASE("PYTORCH_CUDA_ALLOC_CONF: expandable segments by default, off with NCCL UB")
{
  auto spec = testing::minimal_job_spec();
  CHECK(compose_value(spec, "PYTORCH_CUDA_ALLOC_CONF") == "expandable_segments:True");

  SUBCASE("full-iteration graphs add graph_capture_record_stream_reuse")
  {
    spec.training.cuda_graphs = config::CudaGraphs::full_iteration;
    CHECK(compose_value(spec, "PYTORCH_CUDA_ALLOC_CONF")
          == "expandable_segments:True,graph_capture_record_stream_reuse:True");
    CHECK(compose_value(spec, "TORCH_NCCL_AVOID_RECORD_STREAMS") == "0");
  }
  SUBCASE("fine-grained offload with scoped graphs also reuses capture streams")
  {
    spec.training.cuda_graphs = config::CudaGraphs::transformer_engine;
    spec.training.fine_grained_activation_offloading = true;
    CHECK(compose_value(spec, "PYTORCH_CUDA_ALLOC_CONF")
          == "expandable_segments:True,graph_capture_record_stream_reuse:True");
    CHECK(compose_value(spec, "TORCH_NCCL_AVOID_RECORD_STREAMS") == "0");
  }
  SUBCASE("NCCL UB removes expandable segments, with a finding")
  {
    spec.training.nccl_ub = true;
    const auto environment = env::compose(spec, {});
    CHECK(value_of(environment, "PYTORCH_CUDA_ALLOC_CONF") == "<unset>");
    CHECK_FALSE(env::has_expandable_segments(environment));
    REQUIRE(environment.findings.size() == 1);
    CHECK(environment.findings[0].rule == "env.nccl_ub_expandable_segments");
    CHECK(environment.findings[0].severity == Severity::warning);
  }
  SUBCASE("NCCL UB with full-iteration graphs keeps only the capture key")
  {
    spec.training.nccl_ub = true;
    spec.training.cuda_graphs = config::CudaGraphs::full_iteration;
    CHECK(compose_value(spec, "PYTORCH_CUDA_ALLOC_CONF") == "graph_capture_record_stream_reuse:True");
    CHECK(compose_value(spec, "NCCL_GRAPH_REGISTER") == "<absent>");
  }
}

TEST_CASE("NCCL_GRAPH_REGISTER=0 exactly when expandable segments meet CUDA graphs")
{
  auto spec = testing::minimal_job_spec();
  CHECK(compose_value(spec, "NCCL_GRAPH_REGISTER") == "<absent>");
  for (auto graphs : {config::CudaGraphs::local, config::CudaGraphs::transformer_engine,
                      config::CudaGraphs::full_iteration}) {
    CAPTURE(config::to_string(graphs));
    for (const char* gpu : {"a100-80gb", "h100-80gb", "gb200"}) {
      CAPTURE(gpu);
      spec.cluster.gpu_info = testing::gpu(gpu);
      spec.training.cuda_graphs = graphs;
      CHECK(compose_value(spec, "NCCL_GRAPH_REGISTER") == "0");
    }
  }
  SUBCASE("user expandable segments with graphs also get it")
  {
    spec.training.cuda_graphs = config::CudaGraphs::local;
    spec.training.nccl_ub = true;
    spec.env = {{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"}};
    CHECK(compose_value(spec, "NCCL_GRAPH_REGISTER") == "0");
  }
}

TEST_CASE("NCCL rows: record streams, NVLS, CTA policy, high priority")
{
  auto spec = testing::minimal_job_spec();
  CHECK(compose_value(spec, "TORCH_NCCL_AVOID_RECORD_STREAMS") == "1");
  CHECK(compose_value(spec, "NCCL_NVLS_ENABLE") == "0");
  CHECK(compose_value(spec, "NCCL_CTA_POLICY") == "<absent>");
  CHECK(compose_value(spec, "TORCH_NCCL_HIGH_PRIORITY") == "1");
  spec.training.nccl_ub = true;
  CHECK(compose_value(spec, "NCCL_NVLS_ENABLE") == "1");
  CHECK(compose_value(spec, "NCCL_CTA_POLICY") == "1");
}

TEST_CASE("Transformer Engine rows: SM margin, CPU offload v1, fast math")
{
  auto spec = testing::minimal_job_spec();
  CHECK(compose_value(spec, "NVTE_FWD_LAYERNORM_SM_MARGIN") == "<absent>");
  CHECK(compose_value(spec, "NVTE_CPU_OFFLOAD_V1") == "<absent>");
  CHECK(compose_value(spec, "NVTE_USE_FAST_MATH") == "<absent>");
  spec.training.overlap_grad_reduce = true;
  CHECK(compose_value(spec, "NVTE_FWD_LAYERNORM_SM_MARGIN") == "16");
  CHECK(compose_value(spec, "NVTE_BWD_LAYERNORM_SM_MARGIN") == "16");
  config::MoeSpec moe;
  moe.token_dispatcher = "flex";
  spec.model.moe = moe;
  CHECK(compose_value(spec, "NVTE_FWD_LAYERNORM_SM_MARGIN") == "20");
  spec.training.fine_grained_activation_offloading = true;
  CHECK(compose_value(spec, "NVTE_CPU_OFFLOAD_V1") == "1");
  spec.training.precision = config::Precision::nvfp4;
  CHECK(compose_value(spec, "NVTE_USE_FAST_MATH") == "1");
}

TEST_CASE("GPU- and model-specific rows")
{
  auto spec = testing::llama3_70b_sft();
  CHECK(compose_value(spec, "NCCL_P2P_NET_CHUNKSIZE") == "2097152");
  CHECK(compose_value(spec, "NCCL_IGNORE_CPU_AFFINITY") == "<absent>");
  spec.cluster.gpu_info = testing::gpu("b300");
  CHECK(compose_value(spec, "NCCL_IGNORE_CPU_AFFINITY") == "1");
  spec.parallelism.pp = 1;
  CHECK(compose_value(spec, "NCCL_P2P_NET_CHUNKSIZE") == "<absent>");
  CHECK(compose_value(spec, "NVTE_ALLOW_NONDETERMINISTIC_ALGO") == "1");
  spec.model.preset = "deepseek-v3";
  CHECK(compose_value(spec, "NVTE_ALLOW_NONDETERMINISTIC_ALGO") == "0");
}

TEST_CASE("NCCL flight recorder: on, dumping on timeout, the dumps next to the logs when that place is known")
{
  // ProcessGroupNCCL.hpp: TORCH_NCCL_TRACE_BUFFER_SIZE > 0 turns the recorder on and
  // TORCH_NCCL_DUMP_ON_TIMEOUT dumps on a watchdog timeout; FlightRecorder.hpp's
  // DebugInfoWriter writes c10::str(TORCH_NCCL_DEBUG_INFO_TEMP_FILE, rank).
  auto spec = testing::minimal_job_spec();
  spec.launch.output = "logs/%x-%j.out";
  CHECK(compose_value(spec, "TORCH_NCCL_TRACE_BUFFER_SIZE") == "2000");
  CHECK(compose_value(spec, "TORCH_NCCL_DUMP_ON_TIMEOUT") == "1");
  CHECK(compose_value(spec, "TORCH_NCCL_DEBUG_INFO_TEMP_FILE") == "logs/nccl_trace_%j_rank_");
  // %j, the job id, filled in by the job script: a retry's dumps do not
  // overwrite the failed attempt's (DebugInfoWriter opens the file for
  // writing, truncating it).
  const env::Environment composed = env::compose(spec, {});
  const auto* per_job = composed.find("TORCH_NCCL_DEBUG_INFO_TEMP_FILE");
  REQUIRE(per_job != nullptr);
  CHECK(per_job->per_job);
  spec.launch.output = "/scratch/me/%x-%j.out";
  spec.launch.workdir = "/work/me";
  CHECK(compose_value(spec, "TORCH_NCCL_DEBUG_INFO_TEMP_FILE") == "/scratch/me/nccl_trace_%j_rank_");
  // A relative log path under another workdir: Slurm and the trainer would
  // resolve it from different directories, so PyTorch's default stays.
  spec.launch.output = "logs/%x-%j.out";
  CHECK(compose_value(spec, "TORCH_NCCL_DEBUG_INFO_TEMP_FILE") == "<absent>");
  spec.launch.workdir = ".";
  spec.launch.output = "logs/%j/rank-%t.out";  // a directory per job
  CHECK(compose_value(spec, "TORCH_NCCL_DEBUG_INFO_TEMP_FILE") == "<absent>");
  spec.launch.output = "job-%j.out";
  CHECK(compose_value(spec, "TORCH_NCCL_DEBUG_INFO_TEMP_FILE") == "nccl_trace_%j_rank_");
  // The user's [env] wins: 0 turns the recorder off; a user's prefix is
  // taken literally (no %j expansion).
  spec.env = {{"TORCH_NCCL_TRACE_BUFFER_SIZE", "0"}, {"TORCH_NCCL_DEBUG_INFO_TEMP_FILE", "/scratch/fr_%j_"}};
  CHECK(compose_value(spec, "TORCH_NCCL_TRACE_BUFFER_SIZE") == "0");
  const env::Environment users_own = env::compose(spec, {});
  const auto* user = users_own.find("TORCH_NCCL_DEBUG_INFO_TEMP_FILE");
  REQUIRE(user != nullptr);
  CHECK_FALSE(user->per_job);
}

TEST_CASE("The Llama3-70B SFT baseline on 32 x H100 composes the memory-tuning guide's environment")
{
  const auto environment = env::compose(testing::llama3_70b_sft(), {});
  CHECK(environment.findings.empty());
  std::vector<std::string> lines;
  for (const auto& v : environment.variables) {
    lines.push_back(v.name + "=" + v.value);
  }
  const std::vector<std::string> expected = {
    "CUDA_DEVICE_MAX_CONNECTIONS=1",      "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
    "TORCH_NCCL_AVOID_RECORD_STREAMS=1",  "NCCL_NVLS_ENABLE=0",
    "TORCH_NCCL_HIGH_PRIORITY=1",         "NCCL_P2P_NET_CHUNKSIZE=2097152",
    "NVTE_ALLOW_NONDETERMINISTIC_ALGO=1", "TORCH_NCCL_TRACE_BUFFER_SIZE=2000",
    "TORCH_NCCL_DUMP_ON_TIMEOUT=1",       "TORCH_NCCL_DEBUG_INFO_TEMP_FILE=logs/nccl_trace_%j_rank_",
  };
  CHECK(lines == expected);
  for (const auto& v : environment.variables) {
    CAPTURE(v.name);
    CHECK(v.layer == env::Layer::policy);
    CHECK(v.rule.rfind("env.", 0) == 0);
    CHECK_FALSE(v.reason.empty());
    CHECK(v.citation.find("[") == 0);
  }
}
