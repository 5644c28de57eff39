// Megatron Bridge ConfigContainer keys -> JobSpec. Key names and value forms
// are Megatron-Bridge's (training/config.py, mixed_precision.py, peft/lora.py,
// scripts/training/run_recipe.py docstring: "model.tensor_model_parallel_size=N")
// and Megatron-LM's TransformerConfig.
#include "config/bridge_keys.hpp"
#include "config/not_modelled.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using lg::config::BridgeEffect;
using lg::config::BridgeSetting;
using lg::config::JobSpec;

namespace {

std::vector<BridgeSetting> words(const std::vector<std::string>& list)
{
  std::vector<BridgeSetting> out;
  int column = 1;
  for (const auto& word : list) {
    auto setting = lg::config::parse_bridge_override(word, {"command line", 1, column++});
    REQUIRE(setting.has_value());
    out.push_back(*setting);
  }
  return out;
}

std::string apply_error(const std::vector<std::string>& list)
{
  JobSpec spec;
  try {
    lg::config::apply_bridge_settings_or_throw(spec, words(list));
  } catch (const lg::InputError& e) {
    return std::string(e.what()) + (e.hint.empty() ? "" : " | hint: " + e.hint);
  }
  return "no error";
}

} // namespace

TEST_SUITE_BEGIN("config");

TEST_CASE("bridge keys: a key=value word splits; Hydra's + and ++ prefixes are accepted")
{
  const auto a = lg::config::parse_bridge_override("model.tensor_model_parallel_size=8");
  REQUIRE(a.has_value());
  CHECK(a->key == "model.tensor_model_parallel_size");
  CHECK(a->value == "8");
  const auto b = lg::config::parse_bridge_override("++train.global_batch_size=512");
  REQUIRE(b.has_value());
  CHECK(b->key == "train.global_batch_size");
  CHECK_FALSE(lg::config::parse_bridge_override("--recipe").has_value());
  CHECK_FALSE(lg::config::parse_bridge_override("--lr=3").has_value());
  CHECK_FALSE(lg::config::parse_bridge_override("PATH=/bin").has_value());
}

TEST_CASE("bridge keys: the 70B SFT recipe's settings map to the JobSpec of the TOML example")
{
  JobSpec spec;
  lg::config::apply_bridge_settings_or_throw(
    spec, words({"model.tensor_model_parallel_size=4", "model.pipeline_model_parallel_size=4",
                 "model.virtual_pipeline_model_parallel_size=5", "model.sequence_parallel=true",
                 "model.seq_length=4096", "train.micro_batch_size=1", "train.global_batch_size=32",
                 "mixed_precision=bf16_with_fp8_current_scaling_mixed", "model.recompute_granularity=selective",
                 "model.recompute_modules=[core_attn]", "ddp.grad_reduce_in_fp32=false",
                 "ddp.use_distributed_optimizer=true"}));
  CHECK(spec.parallelism.tp == 4);
  CHECK(spec.parallelism.pp == 4);
  CHECK(spec.parallelism.vpp == 5);
  CHECK(spec.parallelism.sequence_parallel);
  CHECK(spec.model.seq_length == 4096);
  CHECK(spec.training.global_batch_size == 32);
  CHECK(spec.training.precision == lg::config::Precision::fp8_cs);
  CHECK(spec.training.recompute.granularity == lg::config::RecomputeGranularity::selective);
  CHECK(spec.training.recompute.modules == std::vector<std::string>{"core_attn"});
  CHECK(spec.training.optimizer.grad_dtype == "bf16");
  REQUIRE(spec.location_of("parallelism.tp").has_value());
  CHECK(spec.location_of("parallelism.tp")->column == 1);
  CHECK(spec.location_of("training.precision")->column == 8);
}

TEST_CASE("bridge keys: fp8 and fp8_recipe resolve together in either order")
{
  for (const auto& order : {std::vector<std::string>{"mixed_precision.fp8=hybrid", "mixed_precision.fp8_recipe=delayed"},
                            std::vector<std::string>{"mixed_precision.fp8_recipe=delayed", "mixed_precision.fp8=hybrid"}}) {
    JobSpec spec;
    lg::config::apply_bridge_settings_or_throw(spec, words(order));
    CHECK(spec.training.precision == lg::config::Precision::fp8_delayed);
  }
  JobSpec spec;
  lg::config::apply_bridge_settings_or_throw(spec, words({"mixed_precision.fp8_recipe=mxfp8"}));
  CHECK(spec.training.precision == lg::config::Precision::bf16);  // fp8 stays off (None)
}

TEST_CASE("bridge keys: activation_func with gated_linear_unit gives the MLP shape")
{
  JobSpec spec;
  lg::config::apply_bridge_settings_or_throw(spec, words({"model.gated_linear_unit=false", "model.activation_func=squared_relu"}));
  CHECK(spec.model.activation == lg::config::Activation::squared_relu);
  lg::config::apply_bridge_settings_or_throw(spec, words({"model.activation_func=torch.nn.functional.gelu", "model.gated_linear_unit=true"}));
  CHECK(spec.model.activation == lg::config::Activation::geglu);
}

TEST_CASE("bridge keys: MoE, MLA, offloading, FSDP, LoRA and env_vars land in their JobSpec fields")
{
  JobSpec spec;
  lg::config::apply_bridge_settings_or_throw(
    spec, words({"model.num_moe_experts=64", "model.moe_router_topk=6", "model.moe_layer_freq=[0,1,1]",
                 "model.multi_latent_attention=true", "model.q_lora_rank=null", "model.cpu_offloading_num_layers=2",
                 "ddp.use_megatron_fsdp=true", "ddp.data_parallel_sharding_strategy=optim_grads", "peft=lora",
                 "peft.dim=8", "peft.sequence_parallel_input_regather=true", "env_vars.NCCL_DEBUG=INFO",
                 "optimizer.optimizer_cpu_offload=true", "optimizer.optimizer_offload_fraction=0.5",
                 "model.moe_token_dispatcher_type=flex", "model.moe_flex_dispatcher_backend=hybridep",
                 "model.moe_enable_deepep=true", "model.moe_deepep_num_sms=16"}));
  REQUIRE(spec.model.moe.has_value());
  CHECK(spec.model.moe->num_experts == 64);
  CHECK(spec.model.moe->router_topk == 6);
  CHECK(spec.model.moe->layer_pattern == std::vector<int>{0, 1, 1});
  // The deprecated moe_enable_deepep is kept as given; with HybridEP named
  // Megatron-LM's TransformerConfig.__post_init__ raises (a rule reports it).
  CHECK(spec.model.moe->enable_deepep);
  CHECK(spec.model.moe->flex_backend == "hybridep");
  CHECK(lg::config::flex_backend_of(*spec.model.moe) == "hybridep");
  CHECK(spec.model.moe->deepep_num_sms == 16);
  REQUIRE(spec.model.mla.has_value());
  CHECK(spec.model.mla->q_lora_rank == 0);
  CHECK(spec.training.cpu_offloading_layers == 2);
  CHECK(spec.training.fsdp == lg::config::Fsdp::megatron);
  CHECK(spec.training.fsdp_sharding == "optim_grads");
  CHECK(spec.peft.method == "lora");
  CHECK(spec.peft.rank == 8);
  CHECK(spec.peft.sequence_parallel_input_regather);
  REQUIRE(spec.env.size() == 1);
  CHECK(spec.env[0].second == "INFO");
  CHECK(spec.training.optimizer.cpu_offload_fraction == doctest::Approx(0.5));
}

TEST_CASE("bridge keys: unknown keys and sections get a did-you-mean; real fields that change nothing pass")
{
  CHECK(apply_error({"model.tensor_model_paralel_size=8"})
        == "command line:1:1: unknown key model.tensor_model_paralel_size (no field 'tensor_model_paralel_size' in the "
           "model section of Megatron Bridge's ConfigContainer) | hint: did you mean 'model.tensor_model_parallel_size'?");
  CHECK(apply_error({"modle.num_layers=4"})
        == "command line:1:1: unknown ConfigContainer section 'modle' in modle.num_layers | hint: did you mean 'model'?");
  // Real fields that do not change memory, rules or environment.
  CHECK(apply_error({"train.train_iters=100", "optimizer.lr=3e-4", "model.moe_router_topk_scaling_factor=2.5",
                     "checkpoint.save=/ckpt", "logger.log_interval=1", "model._target_=x.Y"})
        == "no error");
}

TEST_CASE("bridge keys: bad values are located errors, every one reported")
{
  CHECK(apply_error({"model.tensor_model_parallel_size=four", "train.global_batch_size=0", "mixed_precision=bf16_mixd"})
        == "command line:1:1: model.tensor_model_parallel_size must be an integer, got 'four'\n"
           "command line:1:2: train.global_batch_size must be between 1 and 1073741824, got 0\n"
           "command line:1:3: mixed_precision names no mixed-precision recipe of Megatron Bridge: 'bf16_mixd' "
           "(did you mean 'bf16_mixed'?)");
}

TEST_CASE("bridge keys: a memory-changing field the estimator does not model is noted in the one list, not silence")
{
  // TransformerConfig.moe_expert_capacity_factor (Megatron-LM
  // megatron/core/transformer/transformer_config.py): None is dropless, the
  // only routing the estimator models; window_size=null is full attention.
  JobSpec spec;
  lg::config::apply_bridge_settings_or_throw(spec, words({"model.moe_expert_capacity_factor=1.25", "model.window_size=null"}));
  CHECK(spec.input_findings.empty());
  REQUIRE(spec.not_modelled.size() == 1);
  CHECK(spec.not_modelled[0].setting == "model.moe_expert_capacity_factor");
  CHECK(spec.not_modelled[0].what.find("dropless") != std::string::npos);
  CHECK(spec.not_modelled[0].what.find("(= 1.25)") != std::string::npos);
  REQUIRE(spec.not_modelled[0].where.has_value());
  CHECK(spec.not_modelled[0].where->column == 1);
  // The estimate reads the same list: its verdict is unknown, with the setting named.
  CHECK(lg::config::not_modelled(spec).front().text().find("model.moe_expert_capacity_factor: ") == 0);
}

TEST_CASE("bridge keys: bridge_settings_from_job round-trips through apply_bridge_settings")
{
  JobSpec original;
  original.model.num_layers = 12;
  original.model.hidden_size = 1024;
  original.model.ffn_hidden_size = 4096;
  original.model.num_attention_heads = 16;
  original.model.vocab_size = 32000;
  original.model.moe.emplace();
  original.model.moe->num_experts = 8;
  original.model.moe->moe_ffn_hidden_size = 1024;
  original.model.moe->token_dispatcher = "flex";
  original.model.moe->flex_backend = "hybridep";
  original.model.moe->deepep_num_sms = 24;
  original.model.moe->enable_deepep = true;
  original.parallelism.tp = 2;
  original.parallelism.vpp = 3;
  original.training.precision = lg::config::Precision::mxfp8;
  original.training.recompute.granularity = lg::config::RecomputeGranularity::full;
  original.training.recompute.method = lg::config::RecomputeMethod::block;
  original.training.recompute.num_layers = 2;
  original.training.cpu_offloading_layers = 3;
  original.peft.method = "lora";
  original.peft.rank = 4;
  const auto settings = lg::config::bridge_settings_from_job(original);
  JobSpec copy;
  lg::config::apply_bridge_settings_or_throw(copy, settings);
  // Same settings out of the copy: every mapped field survived.
  const auto again = lg::config::bridge_settings_from_job(copy);
  REQUIRE(again.size() == settings.size());
  for (std::size_t i = 0; i < settings.size(); ++i) {
    CHECK(again[i].key == settings[i].key);
    CHECK(again[i].value == settings[i].value);
  }
  CHECK(copy.training.precision == lg::config::Precision::mxfp8);
  CHECK(copy.parallelism.vpp == 3);
  CHECK(copy.training.cpu_offloading_layers == 3);
  REQUIRE(copy.model.moe.has_value());
  CHECK(copy.model.moe->flex_backend == "hybridep");
  CHECK(copy.model.moe->deepep_num_sms == 24);
  CHECK(copy.model.moe->enable_deepep);
}

TEST_SUITE_END();
