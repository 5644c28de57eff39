// Placeholder shapes beyond <…> and your_… at the start of a word (issue 13,
// round 8 of unseen public scripts): a second-person stand-in inside a word
// or spelled "YOU_…", and a Python file named like a constant. sbatch passes
// #SBATCH values to Slurm as written (sbatch man page: options in the script
// are read before the script runs; nothing expands them), so a stand-in there
// stops the submission; on a launch line the program it names does not exist.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const std::string k_launch = "srun torchrun --nproc_per_node=8 train.py\n";

}  // namespace

TEST_CASE("YOU_… in an #SBATCH value and inside a host list are placeholders that stop sbatch")
{
  // Slurm host lists hold numbers and ranges in brackets (sbatch man page,
  // --nodelist: "host[1-5,7,...]"); a stand-in there is not a host.
  const AuditResult r =
    run("#!/bin/bash\n#SBATCH -p YOU_TEAM_ENTITY_NAME\n#SBATCH --nodelist=osk-gpu[YOU_TEAM_GPU_NUM]\n"
        "#SBATCH --nodes=2\n"
        + k_launch);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 2);
  CHECK(line_of(found[0]) == 2);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[0]->diagnostic.message.find("YOU_TEAM_ENTITY_NAME") != std::string::npos);
  CHECK(line_of(found[1]) == 3);
  CHECK(found[1]->diagnostic.message.find("YOU_TEAM_GPU_NUM") != std::string::npos);
  CHECK(found[1]->diagnostic.message.find("osk-gpu") == std::string::npos);  // the stand-in, not the whole value
}

TEST_CASE("a second-person stand-in after a path separator is found; words that only start like it are not")
{
  const AuditResult path = run("#!/bin/bash\ncd /home/your_name/run\n" + k_launch);
  const auto found = with_rule(path, "audit.placeholder");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("your_name") != std::string::npos);
  for (const std::string word : {"YOUNG_MODEL", "youtube-dl", "/data/yourself", "gpu-you"}) {
    CAPTURE(word);
    CHECK(with_rule(run("#!/bin/bash\n#SBATCH --partition=" + word + "\nexport RUN=" + word + "\n" + k_launch),
                    "audit.placeholder")
            .empty());
  }
}

TEST_CASE("a Python file named like a constant on the launch line is a placeholder: torchrun … PYTHON_FILE.py")
{
  const AuditResult r =
    run("#!/bin/bash\n#SBATCH --nodes=1\nsrun torchrun --nproc_per_node=4 \\\n  PYTHON_FILE.py --lr 1\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 4);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(found[0]->diagnostic.message.find("PYTHON_FILE.py") != std::string::npos);
  // Lower case, no underscore, a constant that is not a .py file: scripts, not stand-ins.
  for (const std::string program : {"train_gpt.py", "SRUN.py", "scripts/Train_Model.py", "RUN_ALL.sh", "T5_X.pyc"}) {
    CAPTURE(program);
    CHECK(
      with_rule(run("#!/bin/bash\nsrun torchrun --nproc_per_node=4 " + program + "\n"), "audit.placeholder").empty());
  }
}

TEST_CASE(
  "a to-do marker with a name after it is a placeholder outside #SBATCH too: TODO_SET_DATA_PATH, /ckpt/FIXME_RUN")
{
  // Left items of issue 13: only a bare `TODO`/`FIXME`/`CHANGEME` word was
  // read, so `DATA=TODO_SET_DATA_PATH` and `--load TODO_CHECKPOINT` reached
  // the job as paths that do not exist.
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=1 --gres=gpu:8\nDATA=TODO_SET_DATA_PATH\n"
                            "CKPT=/scratch/runs/FIXME_RUN_NAME\n"
                            "srun torchrun --nproc_per_node 8 train.py --data $DATA --load TODO_CHECKPOINT "
                            "--save $CKPT\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 3);
  CHECK(line_of(found[0]) == 3);
  CHECK(found[0]->diagnostic.message.find("TODO_SET_DATA_PATH") != std::string::npos);
  CHECK(found[1]->diagnostic.message.find("FIXME_RUN_NAME") != std::string::npos);
  CHECK(found[2]->diagnostic.message.find("TODO_CHECKPOINT") != std::string::npos);
  // A variable whose name starts so is a name, not a value; words that only
  // contain the letters are words (TODOS, todo_list, MY_TODO).
  const AuditResult names = run("#!/bin/bash\n#SBATCH --gres=gpu:8\nTODO_DIR=/scratch/todo\n"
                                "srun torchrun --nproc_per_node 8 train.py --queue $TODO_DIR --x ${FIXME_LEVEL} "
                                "--list todo_list.txt --y TODOS --z MY_TODO\n");
  CAPTURE(describe(names));
  CHECK(with_rule(names, "audit.placeholder").empty());
}

TEST_CASE("a run of x as a network interface or HCA name is a placeholder, reported once with its other lines")
{
  // No interface or HCA is named with x alone (Linux: eth0, ib0, hsn0,
  // enp65s0; mlx5_0); NCCL's NCCL_SOCKET_IFNAME, gloo's GLOO_SOCKET_IFNAME
  // and HCCL's HCCL_SOCKET_IFNAME then match no interface.
  const AuditResult r = run("#!/bin/bash\nexport HCCL_SOCKET_IFNAME=xxx\nexport GLOO_SOCKET_IFNAME=xxx\n"
                            "export NCCL_SOCKET_IFNAME=eth0\nexport NCCL_IB_HCA=mlx5\nRUN_TAG=xxx\n"
                            "torchrun --nproc_per_node 8 train.py --tag $RUN_TAG\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 2);
  CHECK(found[0]->diagnostic.message.find("xxx (also used on line 3)") != std::string::npos);
}

// Held-out round 28's Leonardo template: `srun singularity exec … /bin/bash -c
// '… python -c "import torch; …"; accelerate launch … TODO_path_in_container/
// train_script.py TODO_train_script_flags'`. The string's launch is its
// training (not the one-line check), and its words are reported where they
// were written.
TEST_CASE("placeholders in the launch a bash -c string holds: on their own lines")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=1\nsrun singularity exec --nv img.sif /bin/bash -c '\n"
                            "  python -c \"import torch; print(torch.cuda.is_available())\"\n"
                            "  accelerate launch --num_processes 4 TODO_path/train.py TODO_flags\n'\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 2);
  CHECK(line_of(found[0]) == 5);
  CHECK(line_of(found[1]) == 5);
}

// Held-out round 29: `#SBATCH -A CHANGETHIS   #account` and
// `#SBATCH --mail-user=your@email`.
TEST_CASE("CHANGETHIS and your@email are placeholders; the address is named whole")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH -A CHANGETHIS                      #account\n"
                            "#SBATCH --mail-user=your@email\n#SBATCH --mail-type=ALL\nsrun python t.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 2);
  CHECK(found[0]->diagnostic.message.find("CHANGETHIS") != std::string::npos);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[1]->diagnostic.message.find("your@email") != std::string::npos);
  // Words that only begin like one.
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --mail-user=yourself@uni.edu\nsrun python t.py\n"), "audit.placeholder")
          .empty());
}

// Held-out round 31's EMU3 job: `source /path/to/venv/bin/activate`.
TEST_CASE("a placeholder in the file a source reads")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 1\nsource /path/to/venv/bin/activate\nsrun python t.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 1\nsource $HOME/venv/bin/activate\nsrun python t.py\n"), "audit.placeholder")
          .empty());
}
