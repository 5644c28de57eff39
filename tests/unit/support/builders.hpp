// Test builders: small, valid JobSpecs that tests then modify.
#pragma once

#include "config/job_spec.hpp"

namespace lg::testing {

// Llama3-70B SFT on 32 x H100 80GB: TP4 PP4 VPP5 DP2 MBS1 GBS32 seq 4096
// FP8-CS, SP, distributed optimizer — the memory-tuning guide's baseline case.
config::JobSpec llama3_70b_sft();

// A tiny dense model on one 8-GPU H100 node, TP1 PP1, bf16.
config::JobSpec minimal_job_spec();

// A GPU preset by name: "a100-80gb" (Ampere), "h100-80gb" (Hopper), "b200",
// "b300", "gb200" (Blackwell; gb200 has a 72-GPU NVLink domain).
config::GpuSpec gpu(const std::string& name);

// Qwen3-30B-A3B MoE pretraining on 2 x 8 H100, TP2 EP8, alltoall dispatcher,
// in a pyxis container with two mounts, Slurm partition/account/qos, and an
// [env] with NCCL_DEBUG and a user PYTORCH_CUDA_ALLOC_CONF key.
config::JobSpec moe_container_job();

// Llama3-8B LoRA fine-tuning on one 8 x H100 node under Megatron-LM, TP2 SP,
// transformer_engine CUDA graphs, `uv run python pretrain_gpt.py …`.
config::JobSpec lora_job();

// Qwen3-8B LoRA SFT on 8 x H100: TP2 SP, seq 8192, MBS1, bf16, LoRA rank 16 on
// qkv/proj/fc1/fc2 — the memory-tuning guide's input re-gather case.
config::JobSpec qwen3_8b_lora();

} // namespace lg::testing
