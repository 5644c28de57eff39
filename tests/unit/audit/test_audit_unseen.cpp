// Families found on public launch scripts the rules had not seen (issue 13,
// second held-out round): each case is a synthetic script with one pattern.
// Where the bytes/messages come from is said per case (sbatch, bash, torchrun,
// Python, NCCL/PyTorch documentation).
#include "audit/job_from_script.hpp"
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("#SBATCH --partition== and --time = leave '=' in the value: sbatch rejects both")
{
  // The local Slurm 22.05 sbatch --test-only: "invalid partition specified: =",
  // "Invalid --time specification". --job-name== only names the job "=".
  const AuditResult r = run("#!/bin/bash\n#SBATCH --partition==\n#SBATCH --time =\n#SBATCH --job-name==x\n"
                            "srun python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.directive_value");
  REQUIRE(found.size() == 2);
  CHECK(line_of(found[0]) == 2);
  CHECK(line_of(found[1]) == 3);
  CHECK(found[1]->diagnostic.message.find("Invalid --time specification") != std::string::npos);
}

TEST_CASE("a run of x in an #SBATCH value is a placeholder: --account=project_xxxxxxxxx")
{
  // sbatch --test-only on the local Slurm 22.05: "Invalid account or
  // account/partition combination specified". In a variable "xxx" may be
  // somebody's value and is not read (test_audit_rules.cpp).
  const AuditResult r = run("#!/bin/bash\n#SBATCH --account=project_xxxxxxxxx\n#SBATCH -q XXXX\n#SBATCH --exclude=n0x1\n"
                            "srun python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 2);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(line_of(found[0]) == 2);
  CHECK(line_of(found[1]) == 3);
}

TEST_CASE("misspelled #SBATCH among the directives is a comment to sbatch")
{
  // sbatch reads only lines beginning with exactly "#SBATCH"; "##SBATCH" and
  // prose comments are not reported.
  const AuditResult r = run("#!/bin/bash\n#SBATCH -o out.log\n#SBTACH -e err.log\n#sbatch --nodes=2\n##SBATCH -N 4\n"
                            "# SBATCH notes: -N is nodes\nsrun python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.directive_unread");
  REQUIRE(found.size() == 2);
  CHECK(line_of(found[0]) == 3);
  CHECK(line_of(found[1]) == 4);
}

TEST_CASE("`deepspeed … | tee` without pipefail: the pipeline's status is tee's")
{
  // bash(1), "Pipelines": the status is the last command's unless pipefail is set.
  const AuditResult piped = run("#!/bin/bash\n#SBATCH -N 2\ndeepspeed --hostfile h pretrain_gpt.py 2>&1 | tee log\n");
  CHECK(with_rule(piped, "audit.pipe_status").size() == 1);
  const AuditResult set = run("#!/bin/bash\n#SBATCH -N 2\nset -o pipefail\ndeepspeed --hostfile h pretrain_gpt.py | tee log\n");
  CHECK(with_rule(set, "audit.pipe_status").empty());
}

TEST_CASE("--signal=B:USR1 without a trap kills the batch shell, whatever the program")
{
  // sbatch(1) --signal: "B" signals the batch shell only; bash's default action
  // for SIGUSR1 is to terminate (signal(7)).
  const AuditResult untrapped = run("#!/bin/bash\n#SBATCH --signal=B:USR1@60\nsrun python train.py\n");
  const auto found = with_rule(untrapped, "audit.signal");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("60 s before") != std::string::npos);
  const AuditResult trapped = run("#!/bin/bash\n#SBATCH --signal=B:USR1@60\ntrap 'kill -USR1 $P' USR1\n"
                                  "srun python train.py & P=$!\nwait\n");
  CHECK(with_rule(trapped, "audit.signal").empty());
}

TEST_CASE("NCCL_DEBUG=TRACE and TORCH_DISTRIBUTED_DEBUG=DETAIL are debugging settings; INFO is not")
{
  // NCCL user guide (Logging): TRACE for deep debugging, WARN the production
  // minimum; PyTorch distributed.rst: DETAIL may impact performance.
  const AuditResult r = run("#!/bin/bash\nexport NCCL_DEBUG=TRACE\nexport TORCH_DISTRIBUTED_DEBUG=detail\n"
                            "srun python train.py\n");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "env.debug_setting").size() == 2);
  const AuditResult info = run("#!/bin/bash\nexport NCCL_DEBUG=INFO\nexport TORCH_DISTRIBUTED_DEBUG=INFO\nsrun python train.py\n");
  CHECK(with_rule(info, "env.debug_setting").empty());
}

TEST_CASE("Grid Engine/PBS variables in a Slurm batch script expand to nothing")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 2\nn=\"${NHOSTS}\"\ncd $PBS_O_WORKDIR\nm=${NSLOTS:-8}\n"
                            "srun python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.other_scheduler_variable");
  REQUIRE(found.size() == 2);  // ${NSLOTS:-8} handles the unset case
  CHECK(line_of(found[0]) == 3);
  // Without #SBATCH lines nothing says Slurm runs the script.
  CHECK(with_rule(run("#!/bin/bash\necho $NHOSTS\n"), "audit.other_scheduler_variable").empty());
  // Written for both schedulers: #PBS lines too, or a test of which one runs it.
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 2\n#PBS -l nodes=2\ncd $PBS_O_WORKDIR\nsrun python train.py\n"),
                  "audit.other_scheduler_variable").empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 2\nif [ -n \"$PBS_JOBID\" ]; then echo pbs; fi\nsrun python train.py\n"),
                  "audit.other_scheduler_variable").empty());
}

TEST_CASE("#!/bin/sh with bash syntax: Slurm runs the interpreter the first line names")
{
  const AuditResult r = run("#!/bin/sh\n#SBATCH -N 1\nif [[ -z $X ]]; then X=1; fi\nsrun python train.py\n");
  const auto found = with_rule(r, "audit.shell_mismatch");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("line 3") != std::string::npos);
  CHECK(with_rule(run("#!/usr/bin/env sh\nA=(a b)\nsrun python train.py\n"), "audit.shell_mismatch").size() == 1);
  CHECK(with_rule(run("#!/bin/sh\n. ./env.sh\n[ -z \"$X\" ] && X=1\nsrun python train.py\n"), "audit.shell_mismatch").empty());
  CHECK(with_rule(run("#!/bin/bash\nif [[ 1 ]]; then :; fi\nsrun python train.py\n"), "audit.shell_mismatch").empty());
}

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
                           "export MASTER_ADDR=h\nsrun torchrun --nnodes 2 train.py\n",
                           "export PET_RDZV_ENDPOINT=h:1\nsrun torchrun --nnodes 2 train.py\n",
                           "srun torchrun --nnodes 1 train.py\n", "srun torchrun --nnodes 2 $DIST train.py\n"}) {
    CAPTURE(fine);
    CHECK(with_rule(run(head + fine), "audit.torchrun_local_rendezvous").empty());
  }
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
                  "audit.torchrun_default_nnodes").empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=2\nsrun torchrun $DIST_ARGS train.py\n"),
                  "audit.torchrun_default_nnodes").empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=2\nsrun -N 1 torchrun --nproc_per_node=8 train.py\n"),
                  "audit.torchrun_default_nnodes").empty());
  // torch/distributed/argparse_util.py: the env action reads PET_NNODES.
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=2\nexport PET_NNODES=2\nsrun torchrun --nproc_per_node=8 train.py\n"),
                  "audit.torchrun_default_nnodes").empty());
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
                  "audit.torchrun_default_nnodes").size() == 1);
  // srun -n below -N lowers the node count (srun(1)); an unknown count is not judged.
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 8\nsrun -N 8 -n 1 torchrun train.py\n"),
                  "audit.torchrun_default_nnodes").empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 8\nsrun -N $N torchrun train.py\n"),
                  "audit.torchrun_default_nnodes").empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 8\nsrun --nodes=1 torchrun train.py\n"),
                  "audit.torchrun_default_nnodes").empty());
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

TEST_CASE("a heredoc read by bash -s or ssh HOST is launch code, not data")
{
  // bash(1): -s (or no file operand) reads commands from standard input; an
  // unquoted delimiter has the batch shell expand the body first, a quoted one not.
  const AuditResult s = run("#!/bin/bash\n#SBATCH -N 1\nLR=1\nbash -s <<EOF\nexport NCCL_DEBUG=TRACE\n"
                            "python train.py --lr $LR\nEOF\n");
  CAPTURE(describe(s));
  REQUIRE(with_rule(s, "env.debug_setting").size() == 1);
  CHECK(line_of(with_rule(s, "env.debug_setting")[0]) == 5);
  CHECK(with_rule(s, "audit.no_launch").empty());
  const AuditResult ssh = run("#!/bin/bash\n#SBATCH -N 2\nfor h in a b; do\n  ssh -p 22 $h <<'EOF' &\n"
                              "torchrun --nproc_per_node 8 -m pkg.train.py\nEOF\ndone\nwait\n");
  CAPTURE(describe(ssh));
  CHECK(with_rule(ssh, "audit.module_name").size() == 1);
  // cat/sbatch heredocs stay data.
  CHECK(with_rule(run("#!/bin/bash\ncat > cfg <<EOF\nexport NCCL_DEBUG=TRACE\nEOF\nsrun python train.py\n"),
                  "env.debug_setting").empty());
}

TEST_CASE("Lightning without #SBATCH --signal: advice only when the code says Lightning")
{
  // Lightning docs, "Run on a SLURM-managed cluster": auto-requeue needs
  // #SBATCH --signal=SIGUSR1@90.
  const AuditResult cli = run("#!/bin/bash\n#SBATCH -N 2\nsrun python main.py fit --trainer.num_nodes=2\n");
  const auto found = with_rule(cli, "audit.signal");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 2\nsrun lightning run model train.py\n"), "audit.signal").size() == 1);
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --signal=SIGUSR1@90\nsrun python main.py fit --trainer.num_nodes=2\n"),
                  "audit.signal").empty());
  // A file name is not evidence; a comment is said as a condition ("if so", test_audit_unseen6.cpp).
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 2\nsrun python lightning_train.py\n"), "audit.signal").empty());
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
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -w n[1-2]\nsrun torchrun --nnodes 2 train.py\n"), "audit.nodes_duplicated").empty());
}

TEST_CASE("srun bash FILE runs another file: no training program read, said as advice")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 4\nsrun --nodes=4 bash demo/torchrun_script.sh\n");
  const auto found = with_rule(r, "audit.no_launch");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(with_rule(run("#!/bin/bash\nsrun bash -c \"python train.py\"\n"), "audit.no_launch").empty());
}
