// Launch lines whose command word is not written as the program's name (issue
// 13, round 13 of unseen public scripts): `$(which torchrun)` runs the file
// the lookup printed, the torchrun on PATH (bash(1), SHELL BUILTIN COMMANDS,
// `command -v` and `type -P`; which(1)); `ray job submit [OPTIONS] --
// ENTRYPOINT` runs the entrypoint on the Ray cluster's head node (Ray, "Ray
// Jobs CLI API Reference"). Both were read as "no training launch", and so
// the environment of the launch was never checked.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("$(which torchrun) as the command word is torchrun: the launch is read and its environment checked")
{
  const std::string script =
    "#!/bin/bash\nexport CUDA_LAUNCH_BLOCKING=\"1\"\n"
    "$(which torchrun) --nproc_per_node=1 --nnodes=1 pretrain_gpt.py --num-layers 4 --hidden-size 512 "
    "--num-attention-heads 8 --seq-length 1024 --max-position-embeddings 1024 --micro-batch-size 1 "
    "--global-batch-size 8 --bf16\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.no_launch").empty());
  const auto debug = with_rule(r, "env.debug_setting");
  REQUIRE(debug.size() == 1);
  CHECK(line_of(debug[0]) == 2);
  // The same with `command -v` and with backquotes.
  for (const std::string word : {"$(command -v torchrun)", "\"$(which torchrun)\"", "`which torchrun`"}) {
    std::string other = script;
    other.replace(other.find("$(which torchrun)"), 17, word);
    const AuditResult o = run(other);
    CAPTURE(word);
    CHECK(with_rule(o, "audit.no_launch").empty());
    CHECK(with_rule(o, "env.debug_setting").size() == 1);
  }
}

TEST_CASE("an unknown command substitution as the command word is still not guessed")
{
  // `$(pick_launcher)` prints a program the audit cannot know.
  const AuditResult r = run("#!/bin/bash\n$(pick_launcher) train.py\n$(which $LAUNCHER) train.py\n");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.no_launch").size() == 1);
}

TEST_CASE("ray job submit … -- python3 -m …: the entrypoint is the launch")
{
  const std::string script =
    "#!/bin/bash\nset -ex\nray job submit --address=\"http://${HOST_IP}:8265\" "
    "--runtime-env-json=\"${RUNTIME_ENV_JSON}\" -- python3 -m relax.entrypoints.train --colocate "
    "2>&1 | tee log/train.log\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.no_launch").empty());
  // Without `--` the options are read as options and the entrypoint follows.
  const AuditResult plain = run("#!/bin/bash\nray job submit --no-wait python3 train.py\n");
  CAPTURE(describe(plain));
  CHECK(with_rule(plain, "audit.no_launch").empty());
  // Other ray subcommands start the cluster, they are not the training.
  const AuditResult start = run("#!/bin/bash\nray start --head --port=6379\n");
  CHECK(with_rule(start, "audit.no_launch").size() == 1);
}

// Round 17 (bench/audit/corpus.md): a public Megatron-LM benchmark built
// `cmd="torchrun ${DISTRIBUTED_ARGS[@]} $MLMROOT/pretrain_gpt.py …"` and ran
// `eval $cmd 2>&1 | tee $OUTDIR/logs.txt` with no pipefail. eval joins its
// words and runs them as a command of the same shell (bash(1), SHELL BUILTIN
// COMMANDS, eval), so the launch is torchrun, and its pipe hides a failure.
TEST_CASE("eval $cmd runs the command the string holds: torchrun is the launch and its pipe is judged")
{
  const std::string script = "#!/bin/bash\nARGS=(--nproc_per_node 8 --nnodes 1)\nif [ \"$1\" = zero ]; then\n"
                             "  OPT=(--use-distributed-optimizer)\nfi\n"
                             "cmd=\"torchrun ${ARGS[@]} pretrain_gpt.py ${OPT[@]} --tensor-model-parallel-size 1\"\n"
                             "eval $cmd 2>&1 | tee logs.txt\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.no_launch").empty());
  const auto pipe = with_rule(r, "audit.pipe_status");
  REQUIRE(pipe.size() == 1);
  CHECK(line_of(pipe[0]) == 7);
  CHECK(pipe[0]->diagnostic.message.find("`torchrun … | …`") != std::string::npos);
  // An eval of text the script does not hold is still no launch.
  const AuditResult unknown = run("#!/bin/bash\neval \"$LAUNCH_CMD\"\n");
  CHECK(with_rule(unknown, "audit.pipe_status").empty());
}

// Rounds 17 and 18 (bench/audit/corpus.md): the program word of a command
// kept in a string (`cmd="torchrun $MLMROOT/pretrain_gpt.py …"` then `eval
// $cmd`; `run_cmd="python3 -u ${DIR}/pretrain_gpt.py …"` then `srun … bash -c
// "${run_cmd}"`) starts with a variable, so its first character came from
// that variable's assignment (`MLMROOT=…`, `DIR=\`pwd\``). The memory advice
// goes where the program's file name is written, the line of the command.
TEST_CASE("memory advice on a launch kept in a string points at the line that names the program")
{
  const AuditResult e = run("#!/bin/bash\nMLMROOT=/opt/Megatron-LM\nARGS=(--nproc_per_node 8)\n"
                            "cmd=\"torchrun ${ARGS[@]} $MLMROOT/pretrain_gpt.py $@ --tensor-model-parallel-size 1\"\n"
                            "eval $cmd 2>&1 | tee logs.txt\n");
  CAPTURE(describe(e));
  REQUIRE(with_rule(e, "audit.memory_unknown").size() == 1);
  CHECK(line_of(with_rule(e, "audit.memory_unknown")[0]) == 4);

  const AuditResult b = run("#!/bin/bash\nDIR=`pwd`\n#SBATCH --nodes=1\nrun_cmd=\"python3 -u ${DIR}/pretrain_gpt.py $@ "
                            "--tensor-model-parallel-size 2\"\nsrun -l --ntasks-per-node=8 bash -c \"${run_cmd}\"\n");
  CAPTURE(describe(b));
  REQUIRE(with_rule(b, "audit.memory_unknown").size() == 1);
  CHECK(line_of(with_rule(b, "audit.memory_unknown")[0]) == 4);
}

// Round 17: a public LUMI job ran `srun … bash -c "singularity_wrapper exec
// accelerate launch …"`. CSC's singularity_wrapper (the LUMI, Puhti and Mahti
// container modules; CSC docs, "Running existing containers") runs its
// command in the image named by $SING_IMAGE: a subcommand and no image word.
TEST_CASE("singularity_wrapper exec CMD is a container wrapper: CMD is the launch")
{
  const std::string script = "#!/bin/bash\n#SBATCH --nodes=2 --ntasks-per-node=1 --gpus-per-node=8\n"
                             "export LAUNCHER=\"singularity_wrapper exec accelerate launch --num_machines 2 "
                             "--num_processes 16 --machine_rank \\$SLURM_PROCID --main_process_ip node1\"\n"
                             "srun bash -c \"$LAUNCHER train.py\"\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.no_launch").empty());
  CHECK(with_rule(r, "audit.accelerate_machine_rank").empty());
}
