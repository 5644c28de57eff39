// Layering (policy < job [env] < command line), the key-by-key allocator
// merge, and user values that break hard rules.
#include "env/compose.hpp"
#include "support/builders.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace lg;

namespace {

const Diagnostic* finding(const env::Environment& environment, const std::string& rule)
{
  for (const auto& d : environment.findings) {
    if (d.rule == rule) {
      return &d;
    }
  }
  return nullptr;
}

config::JobSpec located(config::JobSpec spec)
{
  spec.source_file = "job.toml";
  spec.locations["env.CUDA_DEVICE_MAX_CONNECTIONS"] = SourceLocation{"job.toml", 21, 1};
  spec.locations["env.PYTORCH_CUDA_ALLOC_CONF"] = SourceLocation{"job.toml", 22, 1};
  spec.locations["training.nccl_ub"] = SourceLocation{"job.toml", 9, 1};
  return spec;
}

} // namespace

TEST_CASE("A user's max_split_size_mb survives the policy's expandable_segments")
{
  auto spec = testing::minimal_job_spec();
  spec.env = {{"PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:512"}};
  const auto environment = env::compose(spec, {});
  const env::Variable* v = environment.find("PYTORCH_CUDA_ALLOC_CONF");
  REQUIRE(v != nullptr);
  CHECK(v->value == "expandable_segments:True,max_split_size_mb:512");
  CHECK(v->layer == env::Layer::job);
  CHECK(v->reason.find("max_split_size_mb from the job's [env]") != std::string::npos);
  CHECK(environment.findings.empty());
}

TEST_CASE("The command line merges over the job, key by key")
{
  auto spec = testing::minimal_job_spec();
  spec.env = {{"PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:512"}};
  const auto environment = env::compose(
    spec, {{"PYTORCH_CUDA_ALLOC_CONF", "garbage_collection_threshold:0.8,max_split_size_mb:256"}});
  const env::Variable* v = environment.find("PYTORCH_CUDA_ALLOC_CONF");
  REQUIRE(v != nullptr);
  CHECK(v->value
        == "expandable_segments:True,max_split_size_mb:256,garbage_collection_threshold:0.8");
  CHECK(v->layer == env::Layer::command_line);
  CHECK(environment.findings.empty());
}

TEST_CASE("A user key that contradicts the policy is kept, with a finding")
{
  auto spec = located(testing::minimal_job_spec());
  spec.training.cuda_graphs = config::CudaGraphs::local;
  spec.env = {{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:False"}};
  const auto environment = env::compose(spec, {});
  CHECK(environment.find("PYTORCH_CUDA_ALLOC_CONF")->value == "expandable_segments:False");
  const Diagnostic* d = finding(environment, "env.alloc_conf_conflict");
  REQUIRE(d != nullptr);
  CHECK(d->severity == Severity::warning);
  REQUIRE(d->where);
  CHECK(d->where->line == 22);
  // No expandable segments left, so no NCCL_GRAPH_REGISTER either.
  CHECK(environment.find("NCCL_GRAPH_REGISTER") == nullptr);
  CHECK_FALSE(env::has_expandable_segments(environment));
}

TEST_CASE("An allocator string PyTorch rejects is one allocator_config_error with PyTorch's message")
{
  auto spec = testing::minimal_job_spec();
  spec.env = {{"PYTORCH_CUDA_ALLOC_CONF", "max_split_size:512,oops"}};
  const auto environment = env::compose(spec, {});
  const auto count = std::count_if(environment.findings.begin(), environment.findings.end(),
                                   [](const Diagnostic& d) { return d.rule == "allocator_config_error"; });
  CHECK(count == 1);
  const Diagnostic* error = finding(environment, "allocator_config_error");
  REQUIRE(error != nullptr);
  CHECK(error->severity == Severity::error);
  // c10/cuda/CUDAAllocatorConfig.cpp (2.8+) and the 2.4-2.7 parser.
  CHECK(error->message.find("Unrecognized key 'max_split_size' in CUDA allocator config.") != std::string::npos);
  CHECK(error->message.find("Unrecognized CachingAllocator option: max_split_size") != std::string::npos);
  CHECK(error->fix.find("max_split_size_mb") != std::string::npos);
}

TEST_CASE("NCCL UB with a user's expandable_segments:True: kept, error finding")
{
  auto spec = located(testing::minimal_job_spec());
  spec.training.nccl_ub = true;
  spec.env = {{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"}};
  const auto environment = env::compose(spec, {});
  CHECK(env::has_expandable_segments(environment));
  const Diagnostic* d = finding(environment, "env.nccl_ub_expandable_segments");
  REQUIRE(d != nullptr);
  CHECK(d->severity == Severity::error);
  CHECK(d->message.find("distributed_data_parallel_config.py:262-267") != std::string::npos);
  CHECK(d->where->line == 22);
}

TEST_CASE("CUDA_DEVICE_MAX_CONNECTIONS overrides that break hard rules are kept with findings")
{
  SUBCASE("not 1 with TP under Megatron-LM on Hopper: error")
  {
    auto spec = located(testing::llama3_70b_sft());
    spec.launch.framework = config::Framework::megatron_lm;
    spec.env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "8"}};
    const auto environment = env::compose(spec, {});
    const env::Variable* v = environment.find("CUDA_DEVICE_MAX_CONNECTIONS");
    CHECK(v->value == "8");
    CHECK(v->layer == env::Layer::job);
    CHECK(v->reason.find("the policy would set 1") != std::string::npos);
    const Diagnostic* d = finding(environment, "env.cuda_device_max_connections_tp_cp");
    REQUIRE(d != nullptr);
    CHECK(d->severity == Severity::error);
    CHECK(d->message.find("arguments.py:1453-1479") != std::string::npos);
    CHECK(d->where->line == 21);
  }
  SUBCASE("the same under Megatron Bridge: warning (MCore only warns)")
  {
    auto spec = testing::llama3_70b_sft();
    const auto environment = env::compose(spec, {{"CUDA_DEVICE_MAX_CONNECTIONS", "32"}});
    const Diagnostic* d = finding(environment, "env.cuda_device_max_connections_tp_cp");
    REQUIRE(d != nullptr);
    CHECK(d->severity == Severity::warning);
    CHECK(environment.find("CUDA_DEVICE_MAX_CONNECTIONS")->layer == env::Layer::command_line);
  }
  SUBCASE("1 under FSDP: error on every generation")
  {
    for (const char* gpu : {"a100-80gb", "h100-80gb", "b200"}) {
      CAPTURE(gpu);
      auto spec = testing::minimal_job_spec();
      spec.cluster.gpu_info = testing::gpu(gpu);
      spec.training.fsdp = config::Fsdp::megatron;
      spec.env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}};
      const auto environment = env::compose(spec, {});
      CHECK(environment.find("CUDA_DEVICE_MAX_CONNECTIONS")->value == "1");
      const Diagnostic* d = finding(environment, "env.cuda_device_max_connections_fsdp");
      REQUIRE(d != nullptr);
      CHECK(d->severity == Severity::error);
    }
  }
  SUBCASE("1 with EP A2A overlap: warning")
  {
    auto spec = testing::minimal_job_spec();
    spec.training.overlap_moe_expert_parallel_comm = true;
    const auto environment = env::compose(spec, {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}});
    CHECK(finding(environment, "env.cuda_device_max_connections_ep_overlap") != nullptr);
  }
}

TEST_CASE("NCCL_GRAPH_REGISTER and NVTE_CPU_OFFLOAD_V1 overrides that break asserts")
{
  auto spec = testing::minimal_job_spec();
  spec.training.cuda_graphs = config::CudaGraphs::transformer_engine;
  spec.training.fine_grained_activation_offloading = true;
  spec.env = {{"NCCL_GRAPH_REGISTER", "1"}, {"NVTE_CPU_OFFLOAD_V1", "0"}};
  const auto environment = env::compose(spec, {});
  const Diagnostic* graphs = finding(environment, "env.nccl_graph_register");
  REQUIRE(graphs != nullptr);
  CHECK(graphs->severity == Severity::error);
  const Diagnostic* offload = finding(environment, "env.nvte_cpu_offload_v1");
  REQUIRE(offload != nullptr);
  CHECK(offload->severity == Severity::error);
  CHECK(environment.find("NCCL_GRAPH_REGISTER")->value == "1");

  spec.training.cuda_graphs = config::CudaGraphs::local;
  const auto local = env::compose(spec, {});
  CHECK(finding(local, "env.nccl_graph_register")->severity == Severity::warning);
}

TEST_CASE("User-only variables follow the policy rows in input order; the command line wins")
{
  auto spec = testing::minimal_job_spec();
  spec.env = {{"NCCL_DEBUG", "WARN"}, {"HF_HOME", "/lustre/hf"}};
  const auto environment = env::compose(spec, {{"NCCL_DEBUG", "INFO"}, {"WANDB_MODE", "offline"}});
  const auto& vars = environment.variables;
  const auto at = [&](const char* name) {
    return std::find_if(vars.begin(), vars.end(), [&](const auto& v) { return v.name == name; })
           - vars.begin();
  };
  CHECK(at("NVTE_ALLOW_NONDETERMINISTIC_ALGO") < at("NCCL_DEBUG"));
  CHECK(at("NCCL_DEBUG") < at("HF_HOME"));
  CHECK(at("HF_HOME") < at("WANDB_MODE"));
  CHECK(environment.find("NCCL_DEBUG")->value == "INFO");
  CHECK(environment.find("NCCL_DEBUG")->layer == env::Layer::command_line);
  CHECK(environment.find("HF_HOME")->rule == "env.user");
}

TEST_CASE("Invalid names are dropped with an error; PYTORCH_ALLOC_CONF gets a warning")
{
  auto spec = testing::minimal_job_spec();
  spec.env = {{"BAD NAME;touch x", "1"}, {"PYTORCH_ALLOC_CONF", "expandable_segments:True"}};
  const auto environment = env::compose(spec, {{"1X", "2"}});
  CHECK(environment.find("BAD NAME;touch x") == nullptr);
  CHECK(environment.find("1X") == nullptr);
  CHECK(std::count_if(environment.findings.begin(), environment.findings.end(),
                      [](const auto& d) { return d.rule == "env.invalid_name"; })
        == 2);
  CHECK(finding(environment, "env.pytorch_alloc_conf_name") != nullptr);
}

TEST_CASE("Debugging switches in [env] get a warning on their line; 0 is not a switch")
{
  // PyTorch documents both for debugging only (docs/source/notes/cuda.rst).
  auto spec = testing::minimal_job_spec();
  spec.env = {{"CUDA_LAUNCH_BLOCKING", "1"}, {"PYTORCH_NO_CUDA_MEMORY_CACHING", "0"}};
  const auto environment = env::compose(spec, {});
  CHECK(std::count_if(environment.findings.begin(), environment.findings.end(),
                      [](const auto& d) { return d.rule == "env.debug_setting"; })
        == 1);
  const Diagnostic* d = finding(environment, "env.debug_setting");
  REQUIRE(d != nullptr);
  CHECK(d->severity == Severity::warning);
  CHECK(d->message.find("CUDA_LAUNCH_BLOCKING=1") != std::string::npos);
}

TEST_CASE("parse_assignment splits at the first '='")
{
  CHECK(env::parse_assignment("A=b=c") == std::make_pair(std::string("A"), std::string("b=c")));
  CHECK(env::parse_assignment("A=") == std::make_pair(std::string("A"), std::string()));
  CHECK_FALSE(env::parse_assignment("A"));
  CHECK_FALSE(env::parse_assignment("=b"));
}

TEST_CASE("100,000 user variables compose in linear time, each once, last value wins")
{
  // Issue 10: each variable searched every other one twice (1e6 [env] keys
  // never finished); 100,000 took minutes, now well under a second.
  auto spec = testing::minimal_job_spec();
  for (int i = 0; i < 100000; ++i) {
    spec.env.emplace_back("V" + std::to_string(i), "1");
  }
  const auto environment = env::compose(spec, {{"V7", "2"}});
  CHECK(std::count_if(environment.variables.begin(), environment.variables.end(),
                      [](const env::Variable& v) { return v.name.starts_with('V'); }) == 100000);
  REQUIRE(environment.find("V7") != nullptr);
  CHECK(environment.find("V7")->value == "2");
}

TEST_CASE("A credential in [env] is a warning (the same detector as audit); token counts are not")
{
  auto spec = testing::minimal_job_spec();
  spec.env = {{"HF_TOKEN", "hf_abcdefghijklmnopqrstuvwxyz0123456789"}, {"TOTAL_TOKENS", "300B"},
              {"TOKENS_DIR", "/data/tokens"}};
  const auto environment = env::compose(spec, {});
  const auto* secret = finding(environment, "env.secret_in_job");
  REQUIRE(secret != nullptr);
  CHECK(secret->severity == Severity::warning);
  CHECK(secret->message.find("HF_TOKEN") != std::string::npos);
  CHECK(secret->fix.find("--export=ALL") != std::string::npos);
  CHECK(std::count_if(environment.findings.begin(), environment.findings.end(),
                      [](const auto& d) { return d.rule == "env.secret_in_job"; })
        == 1);
}
