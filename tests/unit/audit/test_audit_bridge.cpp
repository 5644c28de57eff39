// Megatron Bridge launch lines (`run_recipe.py --recipe NAME key=value …`):
// the overrides are read through config::apply_bridge_settings, the reading
// `check` uses, and what they leave to the recipe stays unknown. The override
// grammar is Hydra's (Megatron-Bridge scripts/training/run_recipe.py passes
// the words to megatron/bridge/training/utils/omegaconf_utils.py); the keys
// are ConfigContainer fields (model.tensor_model_parallel_size is
// TransformerConfig's, Megatron-LM megatron/core/model_parallel_config.py).
// Each script is synthetic.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

std::string bridge_script(const std::string& overrides, const std::string& exports = "")
{
  return "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=8\n#SBATCH --gpus-per-node=8\n" + exports
         + "TP=${TP:-4}\n"
           "CMD=\"python scripts/training/run_recipe.py --recipe llama3_8b_pretrain_config " + overrides + "\"\n"
           "srun --container-image=nvcr.io/nvidia/nemo:25.09 bash -c \"$CMD\"\n";
}

} // namespace

TEST_CASE("Bridge overrides: TP from a default-assigned variable reaches the CUDA_DEVICE_MAX_CONNECTIONS rule")
{
  // Megatron-LM megatron/training/arguments.py asserts CUDA_DEVICE_MAX_CONNECTIONS=1
  // with TP > 1 before Blackwell; Bridge runs are told as a warning.
  const AuditResult r = run(bridge_script("model.tensor_model_parallel_size=$TP train.micro_batch_size=1"));
  CAPTURE(describe(r));
  const auto cdmc = with_rule(r, "env.cuda_device_max_connections_tp_cp");
  REQUIRE(cdmc.size() == 1);
  CHECK(cdmc[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(cdmc[0]->diagnostic.message.find("TP=4") != std::string::npos);
  // CP is the recipe's (unknown here): the message does not claim CP=1.
  CHECK(cdmc[0]->diagnostic.message.find("CP=") == std::string::npos);
  CHECK(cdmc[0]->diagnostic.message.find("the recipe is taken to keep Megatron FSDP off") != std::string::npos);
  // The model is the recipe's: memory is not judged, and it says why.
  const auto memory = with_rule(r, "audit.memory_unknown");
  REQUIRE(memory.size() == 1);
  CHECK(memory[0]->diagnostic.message.find("model.num_layers") != std::string::npos);
  // Exported, the finding goes away.
  CHECK(with_rule(run(bridge_script("model.tensor_model_parallel_size=$TP", "export CUDA_DEVICE_MAX_CONNECTIONS=1\n")),
                  "env.cuda_device_max_connections_tp_cp").empty());
}

TEST_CASE("Bridge overrides: what the words leave to the recipe is never launchguard's default")
{
  // TP 1 is launchguard's default, not the recipe's: no TP given, no TP rule.
  const AuditResult quiet = run(bridge_script("train.global_batch_size=128"));
  CAPTURE(describe(quiet));
  CHECK(with_rule(quiet, "env.cuda_device_max_connections_tp_cp").empty());
  // EP without experts is an error only when the experts are known: the
  // recipe may define them (TransformerConfig.num_moe_experts).
  const AuditResult moe = run(bridge_script("model.expert_model_parallel_size=8"));
  CAPTURE(describe(moe));
  CHECK(with_rule(moe, "moe.ep_requires_experts").empty());
  // An override hidden in an unknown variable may set FSDP: nothing is assumed.
  const AuditResult opaque = run(bridge_script("model.tensor_model_parallel_size=2 $EXTRA_OVERRIDES"));
  CAPTURE(describe(opaque));
  CHECK(with_rule(opaque, "env.cuda_device_max_connections_tp_cp").empty());
}

TEST_CASE("Bridge overrides: a not-modelled setting is named in 'memory not judged' from the one list")
{
  // model.window_size: sliding-window attention (TransformerConfig.window_size);
  // the words come from config/not_modelled.cpp, the same as `check`'s.
  const AuditResult r = run(bridge_script("model.num_layers=32 model.hidden_size=4096 model.num_attention_heads=32 "
                                          "model.window_size=[4096,0] model.tensor_model_parallel_size=2"));
  CAPTURE(describe(r));
  const auto memory = with_rule(r, "audit.memory_unknown");
  REQUIRE(memory.size() == 1);
  CHECK(memory[0]->diagnostic.message.find("model.window_size (sliding-window attention") != std::string::npos);
  CHECK(with_rule(r, "memory.oom").empty());
}

TEST_CASE("an assumed GPU: a rule that hangs on the generation is not reported")
{
  // MXFP8 needs compute capability 10.0 (TransformerEngine
  // transformer_engine/pytorch/fp8.py check_mxfp8_support); a script that
  // names no GPU may well run on Blackwell.
  const std::string script = bridge_script("model.fp8=e4m3 model.fp8_recipe=mxfp8 model.tensor_model_parallel_size=1");
  AuditOptions assumed = h100_options();
  assumed.gpu_assumed = true;
  CHECK(with_rule(run(script, assumed), "precision.mx_nv_requires_blackwell").empty());
  // Told it is an H100 (--gpu), the error stands.
  const AuditResult h100 = run(script);
  const auto told = with_rule(h100, "precision.mx_nv_requires_blackwell");
  REQUIRE(told.size() == 1);
  CHECK(told[0]->diagnostic.severity == lg::Severity::error);
}

// Round 25's Lightning job (Hydra): `trainer.num_nodes=${SLURM_NNODES}
// model.optimizer.lr=6e-4`. `model.` is a section of Megatron Bridge's
// ConfigContainer too, but `optimizer` is no field of it: not Bridge
// overrides, so no Megatron advice (exit-signal-handler, memory).
TEST_CASE("a Hydra override whose field is no ConfigContainer field is not a Bridge job")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 4\n#SBATCH --signal=USR1@600\n"
                            "srun python trainHydra.py trainer.num_nodes=4 model.optimizer.lr=6e-4\n");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.signal").empty());
  CHECK(with_rule(r, "audit.memory_unknown").empty());
  const AuditResult bridge = run("#!/bin/bash\n#SBATCH -N 1\n"
                                 "srun python run_recipe.py --recipe llama3_8b model.tensor_model_parallel_size=2\n");
  CAPTURE(describe(bridge));
  CHECK_FALSE(with_rule(bridge, "audit.memory_unknown").empty());
}
