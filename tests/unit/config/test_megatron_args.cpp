#include "config/megatron_args.hpp"
#include "config/not_modelled.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

TEST_SUITE_BEGIN("config");

TEST_CASE("megatron_args: parallelism, model and training flags become a JobSpec")
{
  const std::vector<std::string> argv = {
    "python", "pretrain_gpt.py", "--tensor-model-parallel-size", "4", "--pipeline-model-parallel-size", "2",
    "--num-layers", "32", "--hidden-size", "4096", "--num-attention-heads", "32", "--group-query-attention",
    "--num-query-groups", "8", "--swiglu", "--seq-length=8192", "--micro-batch-size", "2",
    "--global-batch-size", "64", "--bf16", "--sequence-parallel", "--use-distributed-optimizer",
    "--recompute-granularity", "selective", "--recompute-modules", "core_attn", "mlp",
    "--num-layers-per-virtual-pipeline-stage", "4", "--fp8-format", "hybrid", "--fp8-recipe", "tensorwise"};
  lg::config::MegatronArgsOptions options;
  options.nodes = 2;
  const auto spec = lg::config::job_from_megatron_args(argv, options);
  CHECK(spec.parallelism.tp == 4);
  CHECK(spec.parallelism.pp == 2);
  CHECK(spec.parallelism.vpp == 4);  // 32 layers / pp 2 / 4 per stage
  CHECK(spec.model.num_query_groups == 8);
  CHECK(spec.model.activation == lg::config::Activation::swiglu);
  CHECK(spec.model.ffn_hidden_size == 10880);  // int(8h/3/64)*64
  CHECK(spec.model.seq_length == 8192);
  CHECK(spec.training.precision == lg::config::Precision::fp8_cs);
  CHECK(spec.training.recompute.modules == std::vector<std::string>{"core_attn", "mlp"});
  CHECK(spec.training.distributed_optimizer);
  CHECK(spec.parallelism.sequence_parallel);
  CHECK(spec.cluster.nodes == 2);
  CHECK(spec.location_of("parallelism.tp")->column == 3);
  CHECK(spec.launch.command == argv);
}

TEST_CASE("megatron_args: memory flags: layout, offload modules, CE fusion, deferral, instances")
{
  // Flag names: Megatron-LM megatron/training/arguments.py.
  const auto spec = lg::config::job_from_megatron_args(
    {"--num-layers", "15", "--hidden-size", "1024", "--num-attention-heads", "8",
     "--pipeline-model-parallel-size", "2", "--pipeline-model-parallel-layout", "Et*3|(tt|)*6L",
     "--fine-grained-activation-offloading", "--offload-modules", "[expert_fc1 moe_act]",
     "--cross-entropy-loss-fusion", "--cross-entropy-fusion-impl", "te",
     "--defer-embedding-wgrad-compute", "--wgrad-deferral-limit", "22",
     "--num-distributed-optimizer-instances", "2",
     "--microbatch-group-size-per-virtual-pipeline-stage", "4", "--optimizer", "muon"},
    {});
  CHECK(spec.parallelism.pipeline_layout == "Et*3|(tt|)*6L");
  CHECK(spec.training.offload_modules == std::vector<std::string>{"expert_fc1", "moe_act"});
  CHECK(spec.training.cross_entropy_fusion == "te");
  CHECK(spec.training.defer_embedding_wgrad_compute);
  CHECK(spec.training.wgrad_deferral_limit == 22);
  CHECK(spec.training.optimizer.distributed_instances == 2);
  CHECK(spec.parallelism.microbatch_group_size_per_vp_stage == 4);
  CHECK(spec.training.optimizer.name == "muon");
  CHECK(spec.not_modelled.empty());
  CHECK_THROWS_AS(lg::config::job_from_megatron_args(
                    {"--num-layers", "4", "--hidden-size", "64", "--num-attention-heads", "2",
                     "--pipeline-model-parallel-layout", "Et|q|L"},
                    {}),
                  lg::InputError);
}

TEST_CASE("megatron_args: local attention without the softmax kernel keeps fp32 probabilities")
{
  // Megatron-LM: --transformer-impl local builds core/transformer/dot_product_attention.py
  // (unfused); --no-masked-softmax-fusion sends FusedScaleMaskSoftmax to
  // forward_torch_softmax (core/fusions/fused_softmax.py), in fp32 with
  // --attention-softmax-in-fp32 or --apply-query-key-layer-scaling
  // (transformer_config.py __post_init__ forces it).
  const std::vector<std::string> base = {"--num-layers", "4", "--hidden-size", "64",
                                         "--num-attention-heads", "2", "--transformer-impl", "local"};
  auto with = [&](std::vector<std::string> extra) {
    auto argv = base;
    argv.insert(argv.end(), extra.begin(), extra.end());
    return lg::config::job_from_megatron_args(argv, {});
  };
  const auto scaled = with({"--no-masked-softmax-fusion", "--apply-query-key-layer-scaling"});
  CHECK(scaled.training.attention_backend == lg::config::AttentionBackend::unfused);
  CHECK(scaled.training.unfused_softmax_in_fp32);
  CHECK(with({"--no-masked-softmax-fusion", "--attention-softmax-in-fp32"}).training.unfused_softmax_in_fp32);
  CHECK_FALSE(with({"--attention-softmax-in-fp32"}).training.unfused_softmax_in_fp32);  // the fused kernel
  CHECK_FALSE(with({"--no-masked-softmax-fusion"}).training.unfused_softmax_in_fp32);   // 16-bit softmax
}

TEST_CASE("megatron_args: DeepSpeed ZeRO and distillation teachers are recorded as not modelled")
{
  const auto spec = lg::config::job_from_megatron_args(
    {"--num-layers", "4", "--hidden-size", "64", "--num-attention-heads", "2", "--deepspeed",
     "--zero-stage", "3", "--export-kd-teacher-load", "/ckpt/teacher"},
    {});
  // --deepspeed and --zero-stage are one note (Megatron-DeepSpeed's
  // megatron/arguments.py adds both with deepspeed.add_config_arguments).
  REQUIRE(spec.not_modelled.size() == 2);
  CHECK(spec.not_modelled[0].setting == "--deepspeed");
  CHECK(spec.not_modelled[0].what.find("DeepSpeed ZeRO") == 0);
  CHECK(spec.not_modelled[0].what.find("(stage 3)") != std::string::npos);
  REQUIRE(spec.not_modelled[0].where.has_value());
  CHECK(spec.not_modelled[0].where->column == 7);  // the first of the two flags: --deepspeed
  CHECK(spec.not_modelled[1].setting == "--export-kd-teacher-load");
  CHECK(spec.not_modelled[1].what.find("knowledge distillation") == 0);
}

TEST_CASE("megatron_args: flag families and entry points the estimator has no model for are noted by setting")
{
  // Megatron-LM's hybrid models: pretrain_mamba.py with --hybrid-attention-ratio
  // (megatron/training/arguments.py, _add_network_size_args); the table's
  // "--hybrid-" family matches it by prefix.
  const auto spec = lg::config::job_from_megatron_args(
    {"python", "pretrain_mamba.py", "--num-layers", "4", "--hidden-size", "64", "--num-attention-heads", "2",
     "--hybrid-attention-ratio", "0.1"},
    {});
  REQUIRE(spec.not_modelled.size() == 2);
  CHECK(spec.not_modelled[0].setting == "--hybrid-attention-ratio");
  CHECK(spec.not_modelled[1].setting == "pretrain_mamba.py");
  CHECK(spec.not_modelled[1].what == "the mamba model of pretrain_mamba.py");
  // Word by word: a GPT-5-like name is no T5, and --freeze-LM is modelled.
  const auto gpt = lg::config::job_from_megatron_args(
    {"python", "pretrain_gpt5.py", "--num-layers", "4", "--hidden-size", "64", "--num-attention-heads", "2", "--freeze-LM"},
    {});
  CHECK(gpt.not_modelled.empty());
  CHECK(lg::config::not_modelled(gpt).empty());
  CHECK(lg::config::not_modelled_what("--mamba-state-dim=128").has_value());
  CHECK_FALSE(lg::config::not_modelled_what("--mamba-").has_value());  // a family needs a member
}

TEST_CASE("megatron_args: the flex dispatcher's backend: DeepEP by default and by the deprecated flag, HybridEP noted")
{
  // --moe-flex-dispatcher-backend (choices deepep, hybridep; default deepep)
  // and --moe-deepep-num-sms: Megatron-LM megatron/training/arguments.py
  // _add_moe_args; --moe-enable-deepep is turned into backend deepep by
  // TransformerConfig.__post_init__ (megatron/core/transformer/transformer_config.py).
  const std::vector<std::string> base = {"python", "pretrain_gpt.py", "--num-layers", "4", "--hidden-size", "64",
                                         "--num-attention-heads", "2", "--num-experts", "8",
                                         "--moe-token-dispatcher-type", "flex"};
  auto plus = [&](std::vector<std::string> extra) {
    auto argv = base;
    argv.insert(argv.end(), extra.begin(), extra.end());
    return lg::config::job_from_megatron_args(argv, {});
  };
  const auto deepep = plus({"--moe-deepep-num-sms", "32"});
  REQUIRE(deepep.model.moe.has_value());
  CHECK(deepep.model.moe->flex_backend == "deepep");
  CHECK(deepep.model.moe->deepep_num_sms == 32);
  CHECK(lg::config::not_modelled(deepep).empty());
  const auto hybrid = plus({"--moe-flex-dispatcher-backend", "hybridep"});
  CHECK(hybrid.model.moe->flex_backend == "hybridep");
  const auto notes = lg::config::not_modelled(hybrid);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].text().find("hybridep") != std::string::npos);
  // The deprecated flag is kept as given; the backend it resolves to is DeepEP
  // unless HybridEP is named (then the rules report Megatron's ValueError).
  const auto deprecated = plus({"--moe-flex-dispatcher-backend", "ncclep", "--moe-enable-deepep"});
  CHECK(deprecated.model.moe->enable_deepep);
  CHECK(lg::config::flex_backend_of(*deprecated.model.moe) == "deepep");
  CHECK(deprecated.location_of("model.moe.enable_deepep").has_value());
  const auto both = plus({"--moe-flex-dispatcher-backend", "hybridep", "--moe-enable-deepep"});
  CHECK(lg::config::flex_backend_of(*both.model.moe) == "hybridep");
  CHECK_THROWS_AS(plus({"--moe-deepep-num-sms", "0"}), lg::InputError);
  // --moe-flex-dispatcher-num-sms replaced the per-backend knobs and wins
  // over them (TransformerConfig.__post_init__).
  CHECK(plus({"--moe-hybridep-num-sms", "16"}).model.moe->deepep_num_sms == 16);
  CHECK(plus({"--moe-deepep-num-sms", "24", "--moe-flex-dispatcher-num-sms", "40"}).model.moe->deepep_num_sms == 40);
}

TEST_CASE("megatron_args: Megatron's defaults apply when flags are absent")
{
  const auto spec = lg::config::job_from_megatron_args(
    {"--num-layers", "12", "--hidden-size", "512", "--num-attention-heads", "8", "--tokenizer-type", "GPT2BPETokenizer"}, {});
  CHECK(spec.model.ffn_hidden_size == 2048);
  CHECK(spec.model.normalization == lg::config::Normalization::layer_norm);
  CHECK(spec.model.add_bias_linear);
  CHECK_FALSE(spec.model.untie_embeddings_and_output_weights);
  CHECK(spec.model.vocab_size == 50257);
  CHECK(spec.model.hidden_dropout == doctest::Approx(0.1));
  CHECK_FALSE(spec.training.distributed_optimizer);
}

TEST_CASE("megatron_args: --grad-reduce-in-bf16 halves the gradient buffers")
{
  const auto spec = lg::config::job_from_megatron_args(
    {"--num-layers", "2", "--hidden-size", "64", "--num-attention-heads", "4", "--grad-reduce-in-bf16"}, {});
  CHECK(spec.training.optimizer.grad_dtype == "bf16");
}

TEST_CASE("megatron_args: a bad integer names the flag and its position")
{
  CHECK_THROWS_WITH_AS(lg::config::job_from_megatron_args({"--num-layers", "many"}, {}),
                       "command line:1:1: --num-layers needs an integer, got 'many'", lg::InputError);
}

TEST_CASE("megatron_args: values outside the job file's ranges are input errors")
{
  const std::vector<std::string> model = {"--num-layers", "4", "--hidden-size", "64", "--num-attention-heads", "2"};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), model.begin(), model.end());
    return extra;
  };
  CHECK_THROWS_WITH_AS(lg::config::job_from_megatron_args(with({"--tensor-model-parallel-size", "0"}), {}),
                       "command line:1:7: --tensor-model-parallel-size must be between 1 and 1024, got 0",
                       lg::InputError);
  CHECK_THROWS_AS(lg::config::job_from_megatron_args(with({"--micro-batch-size", "-3"}), {}), lg::InputError);
  CHECK_THROWS_AS(lg::config::job_from_megatron_args(with({"--seq-length", "4294967297"}), {}), lg::InputError);
  CHECK_THROWS_AS(lg::config::job_from_megatron_args(with({"--hidden-dropout", "nan"}), {}), lg::InputError);
  // Found by fuzz/fuzz_megatron_args: 4 layers at 5 per virtual stage gave
  // vpp = 0 and a division by zero in the estimator's what-if table.
  CHECK_THROWS_WITH_AS(
    lg::config::job_from_megatron_args(with({"--num-layers-per-virtual-pipeline-stage", "5"}), {}),
    "--num-layers-per-virtual-pipeline-stage 5 is more than the 4 layers per pipeline stage", lg::InputError);
}

TEST_CASE("megatron_args: moe layer frequency expressions")
{
  CHECK(lg::config::parse_moe_layer_freq("1", 4).empty());
  CHECK(lg::config::parse_moe_layer_freq("2", 4) == std::vector<int>{1, 0, 1, 0});
  CHECK(lg::config::parse_moe_layer_freq("([0]*2+[1]*3)", 5) == std::vector<int>{0, 0, 1, 1, 1});
  CHECK(lg::config::parse_moe_layer_freq("[1,0]", 2) == std::vector<int>{1, 0});
  CHECK_THROWS_AS(lg::config::parse_moe_layer_freq("[2]*3", 3), lg::InputError);
}

TEST_CASE("megatron_args: --moe-layer-freq of another length than --num-layers is an error")
{
  auto with = [](std::vector<std::string> extra) {
    const std::vector<std::string> model = {"--num-layers", "4", "--hidden-size", "64", "--num-attention-heads", "2"};
    extra.insert(extra.begin(), model.begin(), model.end());
    return extra;
  };
  // Before: "[1,1]" with --num-layers 4 loaded, and the estimator counted two
  // layers of experts where Megatron refuses to start
  // (megatron/core/models/gpt/gpt_layer_specs.py: assert len(moe_layer_pattern) == config.num_layers).
  CHECK_THROWS_WITH_AS(
    lg::config::job_from_megatron_args(with({"--num-experts", "8", "--moe-layer-freq", "[1,1]"}), {}),
    doctest::Contains("--moe-layer-freq '[1,1]' gives 2 layers but --num-layers is 4"), lg::InputError);
  CHECK_NOTHROW(lg::config::job_from_megatron_args(with({"--num-experts", "8", "--moe-layer-freq", "([0]*1+[1]*3)"}), {}));
}

TEST_SUITE_END();

TEST_CASE("megatron_args: layers per virtual stage count the embedding and loss when the split accounts for them")
{
  // Megatron-LM megatron/training/arguments.py, validate_args: with
  // --account-for-embedding-in-pipeline-split and --account-for-loss-in-
  // pipeline-split, num_layers += 1 each before // pp // layers per virtual
  // stage: Qwen3-235B's 94 layers + 2 over PP 8 is 12 per stage, 6 chunks of 2.
  const std::vector<std::string> argv = {"python",
                                         "pretrain_gpt.py",
                                         "--num-layers",
                                         "94",
                                         "--hidden-size",
                                         "4096",
                                         "--num-attention-heads",
                                         "64",
                                         "--pipeline-model-parallel-size",
                                         "8",
                                         "--num-layers-per-virtual-pipeline-stage",
                                         "2",
                                         "--account-for-embedding-in-pipeline-split",
                                         "--account-for-loss-in-pipeline-split"};
  const auto spec = lg::config::job_from_megatron_args(argv, {});
  CHECK(spec.parallelism.vpp == 6);
  CHECK(spec.parallelism.account_for_embedding_in_pipeline_split);
  CHECK(spec.parallelism.account_for_loss_in_pipeline_split);
  // Without them: 96 layers / pp 8 / 2 = 6 as well; 94 would not split.
  const std::vector<std::string> plain = {"python",
                                          "pretrain_gpt.py",
                                          "--num-layers",
                                          "96",
                                          "--hidden-size",
                                          "4096",
                                          "--num-attention-heads",
                                          "64",
                                          "--pipeline-model-parallel-size",
                                          "8",
                                          "--num-layers-per-virtual-pipeline-stage",
                                          "2"};
  CHECK(lg::config::job_from_megatron_args(plain, {}).parallelism.vpp == 6);
}
