// srun starting a Megatron program once per GPU with nothing that sets RANK.
// Megatron-LM megatron/training/arguments.py and Megatron-DeepSpeed
// megatron/arguments.py: `args.rank = int(os.getenv('RANK', '0'))`,
// `args.world_size = int(os.getenv("WORLD_SIZE", '1'))`; srun gives each
// task SLURM_PROCID (srun(1), OUTPUT ENVIRONMENT VARIABLES), not RANK.
// Round 21's LUMI Megatron-DeepSpeed job (`srun -l python3 $CMD`, 8 tasks).
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {
const std::string k_rank_head = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=8\n#SBATCH --gpus-per-node=8\n";
}

TEST_CASE("srun runs pretrain_gpt.py once per GPU and nothing sets RANK: an error on the srun")
{
  // The program's words come from a variable holding an unknown value
  // ($SLURM_JOBID): they are after the program, so the launch is still read.
  const std::string script = k_rank_head + "source venv/bin/activate\nexport WORLD_SIZE=16\n"
                                      "CONF=ds.$SLURM_JOBID.json\nCMD=\"pretrain_gpt.py --num-layers 2 --config $CONF\"\n"
                                      "srun -l python3 $CMD\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.srun_without_rank");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 9);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[0]->diagnostic.message.find("srun starts 16 tasks of pretrain_gpt.py") != std::string::npos);
  CHECK(found[0]->diagnostic.message.find("whose other ranks never join") != std::string::npos);
}

TEST_CASE("ranks given, a spawning launcher, a pyxis container, a sourced file or one task: nothing")
{
  const std::string tail = "srun python pretrain_gpt.py --num-layers 2\n";
  const std::string scripts[] = {
    k_rank_head + "srun bash -c 'RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID python pretrain_gpt.py'\n",
    k_rank_head + "srun torchrun --nproc-per-node=8 pretrain_gpt.py --num-layers 2\n",
    // enroot's PyTorch hook sets RANK in NGC images started by pyxis
    k_rank_head + "srun --container-image=nvcr.io#nvidia/pytorch:24.01-py3 python pretrain_gpt.py --num-layers 2\n",
    k_rank_head + "source env.sh\n" + tail,
    "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n" + tail,
    // not Megatron's program
    k_rank_head + "srun python train.py\n",
    // Megatron-DeepSpeed with one GPU per task: its device 0 is its own GPU
    k_rank_head + "#SBATCH --gpus-per-task=1\nsrun python pretrain_gpt.py --deepspeed --zero-stage 1\n",
  };
  for (const auto& script : scripts) {
    const AuditResult r = run(script);
    CAPTURE(script);
    CAPTURE(describe(r));
    CHECK(with_rule(r, "audit.srun_without_rank").empty());
  }
}
