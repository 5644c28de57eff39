// The training ConfigContainer keys (recompute, attention, offloading,
// overlap, batch, optimizer, FSDP, PEFT) -> JobSpec fields, the key table and
// the fields that change memory but are not modelled. Field names and
// meanings: Megatron-Bridge src/megatron/bridge/training/config.py,
// mixed_precision.py, comm_overlap.py, peft/lora.py; Megatron-LM
// megatron/core/transformer/transformer_config.py, optimizer/optimizer_config.py,
// distributed/distributed_data_parallel_config.py.
#include "config/bridge_mapping.hpp"

namespace lg::config::bridge {

void add_training_keys(KeyTable& t)
{
  auto add = [&](std::string key, std::string job_key, Setter set) {
    t[std::move(key)] = Entry{{std::move(job_key)}, std::move(set)};
  };
  // Recompute.
  add("model.recompute_granularity", "training.recompute.granularity",
      choice({"null", "selective", "full"}, [](JobSpec& s, std::size_t i) { s.training.recompute.granularity = static_cast<RecomputeGranularity>(i); }));
  add("model.recompute_method", "training.recompute.method", [](JobSpec& s, const Value& v) -> std::string {
    if (v.null) {
      s.training.recompute.method = RecomputeMethod::uniform;
      return {};
    }
    return choice({"uniform", "block"}, [](JobSpec& j, std::size_t i) { j.training.recompute.method = static_cast<RecomputeMethod>(i); })(s, v);
  });
  add("model.recompute_num_layers", "training.recompute.num_layers", integer(LG_BRIDGE_AT(training.recompute.num_layers), 0, 10000, true, 1));
  add("model.recompute_modules", "training.recompute.modules", strings(LG_BRIDGE_AT(training.recompute.modules)));
  // Attention, offloading, CUDA graphs, overlap.
  add("model.attention_backend", "training.attention_backend",
      choice({"auto", "fused", "flash", "unfused", "local"}, [](JobSpec& s, std::size_t i) {
        // auto: Transformer Engine picks; fused is what it picks on Hopper and
        // Blackwell for the common shapes. local: Megatron's own (unfused) core attention.
        static const AttentionBackend map[] = {AttentionBackend::fused, AttentionBackend::fused, AttentionBackend::flash,
                                               AttentionBackend::unfused, AttentionBackend::unfused};
        s.training.attention_backend = map[i];
      }));
  add("model.fine_grained_activation_offloading", "training.fine_grained_activation_offloading",
      boolean(LG_BRIDGE_AT(training.fine_grained_activation_offloading)));
  add("model.cuda_graph_scope", "training.cuda_graph_modules", strings(LG_BRIDGE_AT(training.cuda_graph_modules)));
  for (const char* section : {"model", "comm_overlap"}) {
    add(fmt::format("{}.tp_comm_overlap", section), "training.tp_comm_overlap", boolean(LG_BRIDGE_AT(training.tp_comm_overlap)));
    add(fmt::format("{}.overlap_moe_expert_parallel_comm", section), "training.overlap_moe_expert_parallel_comm",
        boolean(LG_BRIDGE_AT(training.overlap_moe_expert_parallel_comm)));
    add(fmt::format("{}.delay_wgrad_compute", section), "training.delay_wgrad_compute", boolean(LG_BRIDGE_AT(training.delay_wgrad_compute)));
  }
  for (const char* section : {"ddp", "comm_overlap"}) {
    add(fmt::format("{}.overlap_grad_reduce", section), "training.overlap_grad_reduce", boolean(LG_BRIDGE_AT(training.overlap_grad_reduce)));
    add(fmt::format("{}.overlap_param_gather", section), "training.overlap_param_gather", boolean(LG_BRIDGE_AT(training.overlap_param_gather)));
  }
  for (const char* key : {"mixed_precision.fp8_param_gather", "mixed_precision.fp8_param", "model.fp8_param", "ddp.fp8_param_gather"}) {
    add(key, "training.fp8_param_gather", [](JobSpec& s, const Value& v) -> std::string {
      if (v.null) {
        return {};  // None: follows fp8_param_gather (MixedPrecisionConfig.__post_init__)
      }
      return boolean(LG_BRIDGE_AT(training.fp8_param_gather))(s, v);
    });
  }
  // Batch.
  add("train.micro_batch_size", "training.micro_batch_size", integer(LG_BRIDGE_AT(training.micro_batch_size), 1, 1 << 20));
  add("train.global_batch_size", "training.global_batch_size", integer(LG_BRIDGE_AT(training.global_batch_size), 1, 1 << 30));
  // Optimizer and gradients.
  add("optimizer.optimizer", "training.optimizer.name",
      choice({"adam", "sgd"}, [](JobSpec& s, std::size_t i) { s.training.optimizer.name = i == 0 ? "adam" : "sgd"; }));
  for (const char* key : {"optimizer.use_distributed_optimizer", "ddp.use_distributed_optimizer"}) {
    add(key, "training.distributed_optimizer", boolean(LG_BRIDGE_AT(training.distributed_optimizer)));
  }
  add("optimizer.use_precision_aware_optimizer", "training.optimizer.precision_aware", boolean(LG_BRIDGE_AT(training.optimizer.precision_aware)));
  add("optimizer.main_grads_dtype", "training.optimizer.grad_dtype",
      [](JobSpec& s, const Value& v) { return set_dtype(s.training.optimizer.grad_dtype, v, {"fp32", "bf16"}); });
  for (const char* key : {"optimizer.exp_avg_dtype", "optimizer.exp_avg_sq_dtype"}) {
    add(key, "training.optimizer.state_dtype",
        [](JobSpec& s, const Value& v) { return set_dtype(s.training.optimizer.state_dtype, v, {"fp32", "bf16", "fp16", "fp8"}); });
  }
  for (const char* key : {"ddp.grad_reduce_in_fp32", "mixed_precision.grad_reduce_in_fp32"}) {
    add(key, "training.optimizer.grad_dtype", [](JobSpec& s, const Value& v) -> std::string {
      const auto b = to_bool(v);
      if (!b) {
        return fmt::format("must be true or false, got {}", describe(v));
      }
      s.training.optimizer.grad_dtype = *b ? "fp32" : "bf16";
      return {};
    });
  }
  // FSDP.
  add("ddp.use_megatron_fsdp", "training.fsdp", [](JobSpec& s, const Value& v) -> std::string {
    const auto b = to_bool(v);
    if (!b) {
      return fmt::format("must be true or false, got {}", describe(v));
    }
    if (*b) {
      s.training.fsdp = Fsdp::megatron;
    } else if (s.training.fsdp == Fsdp::megatron) {
      s.training.fsdp = Fsdp::none;
    }
    return {};
  });
  add("dist.use_torch_fsdp2", "training.fsdp", [](JobSpec& s, const Value& v) -> std::string {
    const auto b = to_bool(v);
    if (!b) {
      return fmt::format("must be true or false, got {}", describe(v));
    }
    if (*b) {
      s.training.fsdp = Fsdp::torch;
    } else if (s.training.fsdp == Fsdp::torch) {
      s.training.fsdp = Fsdp::none;
    }
    return {};
  });
  add("ddp.data_parallel_sharding_strategy", "training.fsdp_sharding",
      choice({"no_shard", "optim", "optim_grads", "optim_grads_params"}, [](JobSpec& s, std::size_t i) {
        s.training.fsdp_sharding = std::vector<std::string>{"no_shard", "optim", "optim_grads", "optim_grads_params"}[i];
      }));
  add("ddp.nccl_ub", "training.nccl_ub", boolean(LG_BRIDGE_AT(training.nccl_ub)));
  // PEFT (LoRA).
  add("peft.dim", "peft.rank", integer(LG_BRIDGE_AT(peft.rank), 1, 65536));
  add("peft.alpha", "peft.alpha", number(LG_BRIDGE_AT(peft.alpha), 0.0, 1e9));
  add("peft.target_modules", "peft.targets", strings(LG_BRIDGE_AT(peft.targets)));
  add("peft.sequence_parallel_input_regather", "peft.sequence_parallel_input_regather",
      boolean(LG_BRIDGE_AT(peft.sequence_parallel_input_regather)));
}

const KeyTable& key_table()
{
  static const KeyTable t = [] {
    KeyTable table;
    add_model_keys(table);
    add_training_keys(table);
    return table;
  }();
  return t;
}

} // namespace lg::config::bridge
