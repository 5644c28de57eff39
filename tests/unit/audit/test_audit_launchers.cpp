// What the launchers do with the words they are given (issue 13, held-out
// rounds 2-6): torchrun's node count and rendezvous under srun, `-m` with a
// file name, programs that are not Megatron, deepspeed without a hostfile,
// srun running another file. Each case is a synthetic script with one
// pattern; where the behaviour comes from (torchrun, srun, deepspeed, Python,
// Megatron-LM) is said per case.
#include "audit/job_from_script.hpp"
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("srun torchrun --nnodes 2 with no rendezvous address: each node meets itself on 127.0.0.1")
{
  // torch/distributed/run.py get_rdzv_endpoint: no --rdzv-endpoint -> --master-addr:--master-port,
  // defaults 127.0.0.1:29500.
  const std::string head = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n";
  const AuditResult r = run(head + "srun torchrun --nnodes 2 --nproc_per_node=8 train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.torchrun_local_rendezvous");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(line_of(found[0]) == 4);
  // A node count known only at run time: a warning.
  const AuditResult later = run("#!/bin/bash\nsrun torchrun --nnodes $SLURM_NNODES --nproc_per_node=8 train.py\n");
  const auto unknown = with_rule(later, "audit.torchrun_local_rendezvous");
  REQUIRE(unknown.size() == 1);
  CHECK(unknown[0]->diagnostic.severity == lg::Severity::warning);
  for (const char* fine : {"srun torchrun --nnodes 2 --rdzv-endpoint=$H:29500 --rdzv_backend c10d train.py\n",
                           "srun torchrun --nnodes=2 --master_addr $H train.py\n",
                           "export PET_RDZV_ENDPOINT=h:1\nsrun torchrun --nnodes 2 train.py\n",
                           "srun torchrun --nnodes 1 train.py\n", "srun torchrun --nnodes 2 $DIST train.py\n"}) {
    CAPTURE(fine);
    CHECK(with_rule(run(head + fine), "audit.torchrun_local_rendezvous").empty());
  }
  // An exported MASTER_ADDR is not torchrun's: --master-addr reads only
  // PET_MASTER_ADDR (torch/distributed/run.py, action=env), default 127.0.0.1.
  // Held-out round 28's torchtune job.
  const AuditResult addr = run(head + "export MASTER_ADDR=h\nsrun torchrun --nnodes 2 train.py\n");
  const auto exported = with_rule(addr, "audit.torchrun_local_rendezvous");
  REQUIRE(exported.size() == 1);
  CHECK(exported[0]->diagnostic.message.find("the MASTER_ADDR the script sets is not read") != std::string::npos);
}

TEST_CASE("each srun torchrun line gets its launcher checks, not only the training launch")
{
  // The first of two launch lines (the audit reads the last as the training); torch/distributed/run.py as above.
  const AuditResult r = run("#!/bin/bash\nsrun -N4 --ntasks-per-node=4 torchrun --nnodes=4 --nproc_per_node=4 a.py\n"
                            "srun -N1 --ntasks-per-node=1 torchrun --nnodes=1 --nproc_per_node=1 b.py\n");
  CAPTURE(describe(r));
  const auto rendezvous = with_rule(r, "audit.torchrun_local_rendezvous");
  REQUIRE(rendezvous.size() == 1);
  CHECK(line_of(rendezvous[0]) == 2);
  const auto tasks = with_rule(r, "audit.torchrun_tasks_per_node");
  REQUIRE(tasks.size() == 1);
  CHECK(line_of(tasks[0]) == 2);
}

TEST_CASE("srun torchrun on several nodes without --nnodes: each node is a one-node job")
{
  // torch/distributed/run.py: --nnodes defaults to "1:1".
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n"
                            "srun torchrun --nproc_per_node=8 --master_addr=h --master_port=1 train.py\n");
  CAPTURE(describe(r));
  REQUIRE(with_rule(r, "audit.torchrun_default_nnodes").size() == 1);
  CHECK(with_rule(r, "audit.torchrun_default_nnodes")[0]->diagnostic.severity == lg::Severity::error);
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=2\nsrun torchrun --nnodes 2 --nproc_per_node=8 train.py\n"),
                  "audit.torchrun_default_nnodes")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=2\nsrun torchrun $DIST_ARGS train.py\n"),
                  "audit.torchrun_default_nnodes")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=2\nsrun -N 1 torchrun --nproc_per_node=8 train.py\n"),
                  "audit.torchrun_default_nnodes")
          .empty());
  // torch/distributed/argparse_util.py: the env action reads PET_NNODES.
  CHECK(
    with_rule(run("#!/bin/bash\n#SBATCH --nodes=2\nexport PET_NNODES=2\nsrun torchrun --nproc_per_node=8 train.py\n"),
              "audit.torchrun_default_nnodes")
      .empty());
}

TEST_CASE("srun -N 8 torchrun with no #SBATCH --nodes: srun's own count is the step's node count")
{
  // Slurm srun(1): -N/--nodes sets the step's node count; torch/distributed/run.py: --nnodes defaults to "1:1".
  const AuditResult r = run("#!/bin/bash\nsrun -N 8 --ntasks-per-node=1 torchrun --nproc_per_node 8 train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.torchrun_default_nnodes");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("each of the 8 nodes") != std::string::npos);
  CHECK(with_rule(run("#!/bin/bash\nsrun --nodes=2 -n 2 torchrun --nproc_per_node 8 train.py\n"),
                  "audit.torchrun_default_nnodes")
          .size()
        == 1);
  // srun -n below -N lowers the node count (srun(1)); an unknown count is not judged.
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 8\nsrun -N 8 -n 1 torchrun train.py\n"), "audit.torchrun_default_nnodes")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 8\nsrun -N $N torchrun train.py\n"), "audit.torchrun_default_nnodes")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 8\nsrun --nodes=1 torchrun train.py\n"), "audit.torchrun_default_nnodes")
          .empty());
}

TEST_CASE("-m with a file name: Python's runpy finds no module")
{
  const AuditResult r = run("#!/bin/bash\nsrun torchrun --nnodes 1 -m pkg.train.py --lr 1\npython -m pkg.eval\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.module_name");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.fix.find("-m pkg.train ") != std::string::npos);
  CHECK(with_rule(run("#!/bin/bash\npython -m tools.x.py\n"), "audit.module_name").size() == 1);
  CHECK(with_rule(run("#!/bin/bash\npython tools/x.py\n"), "audit.module_name").empty());
}

TEST_CASE("train_gpt.py with no Megatron-LM flag is not read as Megatron")
{
  // Megatron-LM's entry points are pretrain_*.py; nanoGPT/llm.c use train_gpt*.
  const AuditResult r = run("#!/bin/bash\n#SBATCH --gres=gpu:1\npython train_gpt.py experiments/x\n");
  CHECK(with_rule(r, "audit.memory_unknown").empty());
  const AuditResult m = run("#!/bin/bash\n#SBATCH --gres=gpu:1\npython pretrain_gpt.py --config c.yaml\n");
  CHECK(with_rule(m, "audit.memory_unknown").size() == 1);
}

TEST_CASE("-w host list without --nodes sets the node count torchrun's --nnodes is compared with")
{
  // sbatch(1) --nodelist; the local Slurm 22.05 runs `#SBATCH -w n[1-2]` on 2 nodes.
  CHECK(lg::audit::hostlist_count("n[1-4]") == 4);
  CHECK(lg::audit::hostlist_count("SH-10-140-54-[4,12,20,89]") == 4);
  CHECK(lg::audit::hostlist_count("a,b[01-03],c") == 5);
  CHECK(lg::audit::hostlist_count("n[1-2]-[1-3]") == 6);
  CHECK(lg::audit::hostlist_count("$NODES") == 0);
  CHECK(lg::audit::hostlist_count("n[4-1]") == 0);
  const AuditResult r = run("#!/bin/bash\n#SBATCH --ntasks-per-node=1\n#SBATCH -w n[1-4]\n"
                            "srun torchrun --nnodes 1 --nproc_per_node 2 train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.nodes_duplicated");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -w n[1-2]\nsrun torchrun --nnodes 2 train.py\n"), "audit.nodes_duplicated")
          .empty());
}

TEST_CASE("srun bash FILE runs another file: no training program read, said as advice")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 4\nsrun --nodes=4 bash demo/torchrun_script.sh\n");
  const auto found = with_rule(r, "audit.no_launch");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(with_rule(run("#!/bin/bash\nsrun bash -c \"python train.py\"\n"), "audit.no_launch").empty());
}

TEST_CASE("--encoder-seq-length is Megatron's sequence length when --seq-length is absent")
{
  // Megatron-LM megatron/training/arguments.py validate_args: without
  // --seq-length, args.seq_length = args.encoder_seq_length.
  const std::string head =
    "#!/bin/bash\n#SBATCH -N 1\n#SBATCH --gpus-per-node=8\nsrun python pretrain_gpt.py --num-layers 2 "
    "--hidden-size 64 --num-attention-heads 4 --max-position-embeddings 1024 ";
  CHECK(with_rule(run(head + "--encoder-seq-length 1024\n"), "model.max_position_embeddings").empty());
  CHECK(with_rule(run(head + "--seq-length 2048\n"), "model.max_position_embeddings").size() == 1);
  // Neither: the value is unknown, not launchguard's default.
  const AuditResult none = run(head + "--micro-batch-size 1\n");
  CHECK(with_rule(none, "model.max_position_embeddings").empty());
}

TEST_CASE("srun running a shell script says that nothing was read")
{
  // srun(1) runs the named file as the task's program: the training is in that file.
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes 2\nsrun launch_training_accelerate.sh\n");
  const auto advice = with_rule(r, "audit.no_launch");  // pointers into r: r must outlive them
  REQUIRE(advice.size() == 1);
  CHECK(advice[0]->diagnostic.message.find("launch_training_accelerate.sh") != std::string::npos);
}

TEST_CASE("srun deepspeed on several nodes without a hostfile trains one job per node")
{
  // deepspeedai/DeepSpeed deepspeed/launcher/runner.py, fetch_hostfile: "Unable to
  // find hostfile, will proceed with training with local resources only".
  const AuditResult r =
    run("#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=1\nsrun deepspeed train.py --deepspeed\n");
  REQUIRE(with_rule(r, "audit.deepspeed_without_hostfile").size() == 1);
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=4\nsrun deepspeed --hostfile hf train.py\n"),
                  "audit.deepspeed_without_hostfile")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=1\nsrun deepspeed train.py\n"), "audit.deepspeed_without_hostfile")
          .empty());
}

TEST_CASE("torchrun's program named python")
{
  // torch/distributed/run.py: torchrun prepends Python to its script unless
  // --no-python, so `torchrun … python train.py` runs `python -u python train.py`.
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 2\nh=$(hostname)\n"
                            "srun torchrun --nnodes 2 --rdzv_endpoint $h:29500 python train.py\n");
  REQUIRE(with_rule(r, "audit.torchrun_python").size() == 1);
  CHECK(with_rule(run("#!/bin/bash\nsrun torchrun --no-python --nproc_per_node 2 python train.py\n"),
                  "audit.torchrun_python")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\nsrun torchrun --nproc_per_node 2 train.py --python x\n"), "audit.torchrun_python")
          .empty());
}

TEST_CASE("an unknown $(…) value used unquoted is one opaque word, not split at the spaces of its text")
{
  // bash splits the value of $(…) at run time; the audit only has the command
  // text, whose spaces are not the value's. Split there, `--env ip=${ip}`
  // became five words and apptainer's program was read as `-I`.
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-node=4\n"
                            "ip=$(srun -N1 -n1 hostname -I | awk '{print $1}')\n"
                            "srun apptainer exec --nv --env ip=${ip} img.sif torchrun --nnodes 2 --nproc_per_node 4 "
                            "--rdzv_endpoint=$ip:29500 train.py\n");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.no_launch").empty());
  CHECK(with_rule(r, "audit.nodes_duplicated").size() == 1);  // torchrun's own --nnodes 2 was read
}
