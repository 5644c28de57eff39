#include "support/builders.hpp"

namespace lg::testing {

static config::GpuSpec h100()
{
  config::GpuSpec gpu;
  gpu.name = "h100-80gb";
  gpu.display_name = "H100 80GB HBM3";
  gpu.capacity_bytes = 85027979264;  // 79.19 GiB, as presets/gpus/h100-80gb.toml
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
  t.optimizer.grad_dtype = "bf16";  // the Bridge recipe: grad_reduce_in_fp32 = False
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

config::GpuSpec gpu(const std::string& name)
{
  config::GpuSpec g = h100();
  g.name = name;
  g.display_name = name;
  if (name == "a100-80gb") {
    g.generation = config::GpuGeneration::ampere;
    g.capacity_bytes = 85097971712;
  } else if (name == "b200" || name == "b300" || name == "gb200") {
    g.generation = config::GpuGeneration::blackwell;
    g.capacity_bytes = 191091490816;
    g.nvlink_domain = name == "gb200" ? 72 : 8;
  }
  return g;
}

config::JobSpec moe_container_job()
{
  config::JobSpec spec;
  spec.name = "qwen3-30b-a3b-pretrain";
  auto& m = spec.model;
  m.preset = "qwen3-30b-a3b";
  m.num_layers = 48;
  m.hidden_size = 2048;
  m.ffn_hidden_size = 6144;
  m.num_attention_heads = 32;
  m.num_query_groups = 4;
  m.kv_channels = 128;
  m.vocab_size = 151936;
  m.seq_length = 4096;
  m.qk_layernorm = true;
  config::MoeSpec moe;
  moe.num_experts = 128;
  moe.moe_ffn_hidden_size = 768;
  moe.router_topk = 8;
  m.moe = moe;
  spec.parallelism.tp = 2;
  spec.parallelism.ep = 8;
  spec.parallelism.sequence_parallel = true;
  spec.training.global_batch_size = 64;
  spec.training.overlap_grad_reduce = true;
  spec.cluster.gpu_info = h100();
  spec.cluster.nodes = 2;
  spec.slurm.partition = "batch";
  spec.slurm.account = "research";
  spec.slurm.qos = "high";
  spec.slurm.time = "04:00:00";
  spec.slurm.extra_args = {"--exclusive"};
  spec.launch.command = {"python", "scripts/training/run_recipe.py", "--recipe",
                         "qwen3_30b_a3b_pretrain"};
  spec.launch.container_image = "nvcr.io/nvidia/nemo:25.07";
  spec.launch.container_mounts = {"/lustre/data:/data", "/lustre/ckpt:/ckpt"};
  spec.env = {{"NCCL_DEBUG", "WARN"}, {"PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:512"}};
  return spec;
}

config::JobSpec lora_job()
{
  config::JobSpec spec;
  spec.name = "llama3-8b-lora";
  auto& m = spec.model;
  m.preset = "llama3-8b";
  m.num_layers = 32;
  m.hidden_size = 4096;
  m.ffn_hidden_size = 14336;
  m.num_attention_heads = 32;
  m.num_query_groups = 8;
  m.kv_channels = 128;
  m.vocab_size = 128256;
  m.seq_length = 8192;
  spec.parallelism.tp = 2;
  spec.parallelism.sequence_parallel = true;
  spec.training.global_batch_size = 32;
  spec.training.cuda_graphs = config::CudaGraphs::transformer_engine;
  spec.peft.method = "lora";
  spec.cluster.gpu_info = h100();
  spec.cluster.nodes = 1;
  spec.slurm.time = "02:00:00";
  spec.launch.template_name = "torchrun";
  spec.launch.framework = config::Framework::megatron_lm;
  spec.launch.command = {"uv", "run", "python", "pretrain_gpt.py", "--tensor-model-parallel-size",
                         "2", "--sequence-parallel", "--lora-rank", "16"};
  return spec;
}

config::JobSpec qwen3_8b_lora()
{
  config::JobSpec spec;
  spec.name = "qwen3-8b-lora";
  auto& m = spec.model;
  m.preset = "qwen3-8b";
  m.num_layers = 36;
  m.hidden_size = 4096;
  m.ffn_hidden_size = 12288;
  m.num_attention_heads = 32;
  m.num_query_groups = 8;
  m.kv_channels = 128;
  m.vocab_size = 151936;
  m.seq_length = 8192;
  m.qk_layernorm = true;
  spec.parallelism.tp = 2;
  spec.parallelism.sequence_parallel = true;
  spec.training.micro_batch_size = 1;
  spec.training.global_batch_size = 8;
  spec.peft.method = "lora";
  spec.peft.rank = 16;
  spec.cluster.gpu_info = h100();
  spec.cluster.nodes = 1;
  spec.cluster.gpus_per_node = 8;
  spec.launch.command = {"python", "finetune.py"};
  return spec;
}

} // namespace lg::testing
