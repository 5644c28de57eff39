// An AMD job (LUMI-G, ROCm) keeps the default preset for the rules that need
// no GPU generation, but no text may name that preset's NVIDIA GPU or
// generation. The CUDA_DEVICE_MAX_CONNECTIONS verdict itself stands: Megatron-LM
// (megatron/training/arguments.py) asserts it is 1 with TP > 1 when the
// device's major compute capability is below 10, and ROCm builds of PyTorch
// report 9 on MI200/MI300 (torch.cuda.get_device_capability).
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const std::string k_script =
  "#!/bin/bash\n#SBATCH --partition=standard-g\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=8\n"
  "#SBATCH --gpus-per-node=8\n"
  "srun python pretrain_gpt.py --tensor-model-parallel-size 2 --num-layers 4 --hidden-size 512 "
  "--num-attention-heads 8 --seq-length 1024 --max-position-embeddings 1024 "
  "--micro-batch-size 1 --global-batch-size 8 --bf16\n";

}  // namespace

TEST_CASE("AMD job: the CUDA_DEVICE_MAX_CONNECTIONS error names the AMD GPU, not the preset's generation")
{
  AuditOptions amd = h100_options();
  amd.gpu_vendor = "amd";
  amd.gpu_assumed = true;
  const AuditResult r = run(k_script, amd);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "env.cuda_device_max_connections_tp_cp");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[0]->diagnostic.message.find("with TP=2 on an AMD GPU") != std::string::npos);
  for (const auto& f : r.findings) {
    CHECK(f.diagnostic.message.find("hopper") == std::string::npos);
    CHECK(f.diagnostic.message.find("H100") == std::string::npos);
  }
  // The same script judged on an NVIDIA GPU says the generation.
  const AuditResult nvidia = run(k_script);
  const auto hopper = with_rule(nvidia, "env.cuda_device_max_connections_tp_cp");
  REQUIRE(hopper.size() == 1);
  CHECK(hopper[0]->diagnostic.message.find("with TP=2 on hopper") != std::string::npos);
}

TEST_CASE("Ascend NPU job: no CUDA environment verdicts (CANN and HCCL, not CUDA and NCCL)")
{
  // MindSpeed-LM/MM jobs on Ascend set the CANN runtime's and HCCL's variables
  // (ASCEND_*, HCCL_*); CUDA_DEVICE_MAX_CONNECTIONS, NCCL_* and
  // PYTORCH_CUDA_ALLOC_CONF are read by CUDA builds of PyTorch, NCCL and
  // Megatron-LM on NVIDIA GPUs: nothing is said about them on an NPU.
  const std::string npu = "#!/bin/bash\nexport HCCL_CONNECT_TIMEOUT=1200\nexport CUDA_LAUNCH_BLOCKING=1\n"
                          "torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 2 --num-layers 4 "
                          "--hidden-size 512 --num-attention-heads 8 --seq-length 1024 --max-position-embeddings 1024 "
                          "--micro-batch-size 1 --global-batch-size 8 --bf16\n";
  AuditOptions ascend = h100_options();
  ascend.gpu_vendor = "ascend";
  ascend.gpu_assumed = true;
  const AuditResult r = run(npu, ascend);
  CAPTURE(describe(r));
  for (const auto& f : r.findings) {
    CHECK_FALSE(f.diagnostic.rule.starts_with("env."));
  }
  // The same script on an NVIDIA GPU gets both.
  const AuditResult nvidia = run(npu);
  CHECK(with_rule(nvidia, "env.cuda_device_max_connections_tp_cp").size() == 1);
  CHECK(with_rule(nvidia, "env.debug_setting").size() == 1);
}

TEST_CASE("memory not judged: the fix follows the reason, and never says --gpu for an AMD GPU")
{
  // A Megatron-DeepSpeed job on LUMI-G (held-out round 12): the reason is
  // ZeRO, which the estimator does not model; no GPU name changes that.
  const std::string script =
    "#!/bin/bash\n#SBATCH --partition=dev-g\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=8\n#SBATCH "
    "--gpus-per-node=8\n"
    "srun python pretrain_gpt.py --num-layers 24 --hidden-size 1024 --num-attention-heads 16 --seq-length 1024 "
    "--max-position-embeddings 1024 --micro-batch-size 4 --global-batch-size 32 --fp16 --deepspeed "
    "--zero-stage 1\n";
  AuditOptions amd = h100_options();
  amd.gpu_vendor = "amd";
  amd.gpu_assumed = true;
  amd.gpu_unmatched = "an AMD GPU (#SBATCH --partition=dev-g), which the memory model does not know";
  const AuditResult r = run(script, amd);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.memory_unknown");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.fix.find("--gpu") == std::string::npos);
  CHECK(found[0]->diagnostic.message.find("--gpu") == std::string::npos);
  // With no deepspeed, the AMD GPU itself is the reason: still no --gpu.
  std::string plain = script;
  plain.erase(plain.find(" --deepspeed"), std::string(" --deepspeed --zero-stage 1").size());
  const AuditResult p = run(plain, amd);
  CAPTURE(describe(p));
  const auto only_gpu = with_rule(p, "audit.memory_unknown");
  REQUIRE(only_gpu.size() == 1);
  CHECK(only_gpu[0]->diagnostic.fix.find("--gpu") == std::string::npos);
}

// Round 21's Pawsey Setonix job names no GPU on its #SBATCH lines (partition
// `gpu`), but runs a ROCm image (`pytorch2.4.1_rocm6.1.sif`): an AMD GPU, not
// the assumed H100. Also `apptainer exec --rocm` (Apptainer's user guide,
// "GPU Support") and `module load rocm`.
TEST_CASE("a ROCm container or module says the GPU is AMD")
{
  const std::vector<std::string> presets = {"h100-80gb", "a100-80gb"};
  const char* scripts[] = {
    "#!/bin/bash\n#SBATCH --partition=gpu\nIMG=/scratch/p/pytorch2.4.1_rocm6.1.sif\nsrun singularity exec $IMG python t.py\n",
    "#!/bin/bash\n#SBATCH --partition=gpu\nsrun apptainer exec --rocm img.sif python t.py\n",
    "#!/bin/bash\n#SBATCH --partition=gpu\nmodule load rocm/6.0.3\nsrun python t.py\n",
  };
  for (const char* script : scripts) {
    CAPTURE(script);
    const auto hint = gpu_from_script(script, presets);
    REQUIRE(hint.has_value());
    CHECK(hint->preset == "amd");
  }
  CHECK_FALSE(gpu_from_script("#!/bin/bash\n#SBATCH --partition=gpu\nsrun apptainer exec --nv img.sif python t.py\n",
                              presets)
                .has_value());
}

// Round 22's `#SBATCH --partition=h800-ib-2`: NVIDIA's H800 is the H100 SXM
// made for export (Hopper, 80 GB HBM3; NVLink 400 GB/s), judged as the H100
// 80GB preset under its own name.
TEST_CASE("an H800 partition is judged as the H100 80GB preset, named h800")
{
  const std::vector<std::string> presets = {"h100-80gb", "a100-80gb", "b200"};
  const auto hint = gpu_from_script("#!/bin/bash\n#SBATCH --partition=h800-ib-2\nsrun python t.py\n", presets);
  REQUIRE(hint.has_value());
  CHECK(hint->preset == "h100-80gb");
  CHECK(hint->name == "h800");
  CHECK(hint->no_preset.empty());
}

// Round 23: `#SBATCH -p gpu_4090` (RTX 4090 nodes) was noted as "the script
// names no GPU", an H100 assumed. A GPU no preset models, named in a
// partition, constraint or QoS, is the script's GPU by name.
TEST_CASE("a partition naming a GPU no preset models gives that GPU, by name")
{
  const std::vector<std::string> presets = {"h100-80gb", "a100-80gb", "a100-40gb"};
  const auto hint = gpu_from_script("#!/bin/bash\n#SBATCH -p gpu_4090\n#SBATCH -N 2\nsrun python t.py\n", presets);
  REQUIRE(hint.has_value());
  CHECK(hint->preset == "4090");
  const auto l40s = gpu_from_script("#!/bin/bash\n#SBATCH --constraint=l40s\nsrun python t.py\n", presets);
  REQUIRE(l40s.has_value());
  CHECK(l40s->preset == "l40s");
  // Not inside a longer word.
  CHECK_FALSE(gpu_from_script("#!/bin/bash\n#SBATCH -p gpu14090x\nsrun python t.py\n", presets).has_value());
}
