#include "support/builders.hpp"

namespace lg::testing {

static config::GpuSpec h100()
{
  config::GpuSpec gpu;
  gpu.name = "h100-80gb";
  gpu.display_name = "H100 80GB HBM3";
  gpu.capacity_bytes = 85520809984;  // 79.65 GiB, torch total_memory
  gpu.generation = config::GpuGeneration::hopper;
  return gpu;
}

config::JobSpec llama3_70b_sft()
{
  config::JobSpec spec;
  spec.name = "llama3-70b-sft";
  auto& m = spec.model;
  m.preset = "llama3-70b";
  m.num_layers = 80;
  m.hidden_size = 8192;
  m.ffn_hidden_size = 28672;
  m.num_attention_heads = 64;
  m.num_query_groups = 8;
  m.kv_channels = 128;
  m.vocab_size = 128256;
  m.seq_length = 4096;
  m.max_position_embeddings = 8192;
  m.untie_embeddings_and_output_weights = true;
  auto& p = spec.parallelism;
  p.tp = 4;
  p.pp = 4;
  p.vpp = 5;
  p.sequence_parallel = true;
  auto& t = spec.training;
  t.micro_batch_size = 1;
  t.global_batch_size = 32;
  t.precision = config::Precision::fp8_cs;
  t.recompute.granularity = config::RecomputeGranularity::none;
  t.distributed_optimizer = true;
  spec.cluster.gpu_info = h100();
  spec.cluster.nodes = 4;
  spec.cluster.gpus_per_node = 8;
  spec.launch.command = {"python", "scripts/training/run_recipe.py", "--recipe",
                         "llama3_70b_sft"};
  return spec;
}

config::JobSpec minimal_job_spec()
{
  config::JobSpec spec;
  spec.name = "tiny";
  auto& m = spec.model;
  m.num_layers = 4;
  m.hidden_size = 1024;
  m.ffn_hidden_size = 4096;
  m.num_attention_heads = 16;
  m.vocab_size = 32000;
  m.seq_length = 2048;
  spec.training.global_batch_size = 8;
  spec.cluster.gpu_info = h100();
  spec.cluster.nodes = 1;
  spec.cluster.gpus_per_node = 8;
  spec.launch.command = {"python", "train.py"};
  return spec;
}

} // namespace lg::testing
