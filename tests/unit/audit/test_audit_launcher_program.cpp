// audit.launcher_program: a spawning launcher whose script is another
// launcher. torchrun runs its script with Python ("-u" prepended unless
// --no-python: pytorch torch/distributed/run.py, get_args_parser and
// config_from_args), accelerate launch puts sys.executable before the script
// unless --no_python (huggingface/accelerate src/accelerate/utils/launch.py,
// prepare_simple_launcher_cmd_env; its multi-GPU launcher hands the script to
// torch.distributed.run), so
// `accelerate launch … srun python train.py` makes Python look for a file
// named `srun`. Shape from held-out round 18 (bench/audit/corpus.md): a
// Compute Canada per-node accelerate script ending in `srun python
// finetune_gemma.py`.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit::testing;

TEST_CASE("launcher_program: accelerate launch and torchrun given srun as their script")
{
  const auto r = run("#!/bin/bash\naccelerate launch \\\n--multi_gpu \\\n--num_machines=$SLURM_NNODES \\\n"
                     "--machine_rank=$SLURM_NODEID \\\n--main_process_ip=\"$HEAD_NODE\" \\\n"
                     "srun python finetune.py --data_dir /data\n");
  const auto found = with_rule(r, "audit.launcher_program");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 7);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[0]->diagnostic.message.find("accelerate launch's program is `srun`") != std::string::npos);

  const auto t = run("#!/bin/bash\n#SBATCH --gres=gpu:4\ntorchrun --nproc_per_node 4 mpirun -n 4 python train.py\n");
  REQUIRE(with_rule(t, "audit.launcher_program").size() == 1);
  CHECK(with_rule(t, "audit.launcher_program")[0]->diagnostic.message.find("`mpirun`") != std::string::npos);
}

TEST_CASE("launcher_program: not reported where the launcher runs the program as given, or cannot be read")
{
  // --no-python / --no_python: the program is executed directly (a shell script is fine).
  CHECK(with_rule(run("#!/bin/bash\ntorchrun --no-python --nproc_per_node 2 bash run.sh\n"), "audit.launcher_program")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\naccelerate launch --no_python sh run.sh\n"), "audit.launcher_program").empty());
  // An unknown word before the program may be several words (or the program itself).
  CHECK(with_rule(run("#!/bin/bash\ntorchrun $DIST_ARGS srun python x.py\n"), "audit.launcher_program").empty());
  // srun outside the launcher is the usual shape.
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 2\nsrun accelerate launch --num_machines 2 train.py\n"),
                  "audit.launcher_program")
          .empty());
}

TEST_CASE("launcher_program: judged on the command a `\\ #` line cut in two was meant to be")
{
  // The round-18 script as published: the `\ #` line ends accelerate's
  // command (audit.comment_continuation), and `srun` is read as a word of the
  // next command; joined, as meant, it is accelerate's script.
  const auto r = run("#!/bin/bash\naccelerate launch \\\n--multi_gpu \\\n--num_processes=4 \\ # total GPUs\n"
                     "--main_process_ip=\"$HEAD_NODE\" \\\nsrun python finetune.py\n");
  CAPTURE(describe(r));
  REQUIRE(with_rule(r, "audit.comment_continuation").size() == 1);
  const auto found = with_rule(r, "audit.launcher_program");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 6);
  CHECK(found[0]->diagnostic.message.find("as meant (line 4 continued into line 5): accelerate launch's program is "
                                          "`srun`")
        != std::string::npos);
  // A cut command whose joined form is a correct launch gets only the cut.
  const auto ok = run("#!/bin/bash\naccelerate launch \\\n--num_processes=4 \\ # total GPUs\n--multi_gpu \\\n"
                      "finetune.py\n");
  CHECK(with_rule(ok, "audit.comment_continuation").size() == 1);
  CHECK(with_rule(ok, "audit.launcher_program").empty());
}
