// Setup lines that look like they do something and do not (issue 13, round 9
// of public launch scripts): a directive whose '#' is lost, and conda's
// shell.* subcommands run without eval.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("SBATCH --output=… without '#': a command bash cannot find, and the directives below it are ignored")
{
  // sbatch(1) reads only lines beginning with "#SBATCH" before the first
  // command; bash runs `SBATCH` as a program ("command not found").
  const AuditResult r = run("#!/bin/bash\n#SBATCH -c 20\nSBATCH --output=outputs/op.txt\n#SBATCH -w gnode116\n"
                            "srun python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.directive_unread");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
  CHECK(found[0]->diagnostic.message.find("has no '#'") != std::string::npos);
  CHECK(found[0]->diagnostic.message.find("ends the #SBATCH lines") != std::string::npos);
  // Line 4 comes back with the '#': one finding, not a second for its consequence.
  CHECK(with_rule(r, "audit.directive_ignored").empty());
  // A directive after a real command is still its own finding.
  const AuditResult later = run("#!/bin/bash\nSBATCH --output=o.txt\ncd /work\n#SBATCH -w n1\nsrun python train.py\n");
  REQUIRE(with_rule(later, "audit.directive_ignored").size() == 1);
  CHECK(line_of(with_rule(later, "audit.directive_ignored")[0]) == 4);
  // `sbatch --dependency …` (a real submission) and prose are not it.
  CHECK(with_rule(run("#!/bin/bash\nsbatch --dependency=afterok:1 next.sh\necho SBATCH --output is set\n"),
                  "audit.directive_unread")
          .empty());
}

TEST_CASE("conda shell.bash activate ENV run bare prints the activation and changes nothing")
{
  // The `conda` shell function (conda's shell/etc/profile.d/conda.sh) runs
  // `eval "$(conda shell.posix activate …)"`: the subcommand only prints.
  const AuditResult r = run("#!/bin/bash\n#SBATCH --gres=gpu:1\nconda init bash\nconda shell.bash activate torchtune\n"
                            "tune run lora_finetune_single_device --config x\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.conda_printed");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 4);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(found[0]->diagnostic.message.find("`conda shell.bash activate torchtune` prints") != std::string::npos);
  for (const std::string ok :
       {"eval \"$(conda shell.bash hook)\"\nconda activate llama\n",
        "eval \"$(/opt/conda/bin/conda shell.bash activate llama)\"\n", "conda activate llama\n"}) {
    CAPTURE(ok);
    CHECK(with_rule(run("#!/bin/bash\n" + ok + "python train.py\n"), "audit.conda_printed").empty());
  }
}

TEST_CASE("docker run -it in a batch job: no terminal, docker refuses to start")
{
  // sbatch(1) runs the script with stdin on /dev/null; docker/cli's CheckTty
  // refuses -i together with -t when stdin is not a terminal.
  const AuditResult r = run("#!/bin/bash\n#SBATCH --gres=gpu:8\naccelerate launch train.py\n"
                            "docker run -it --gpus all -v $(pwd):/data img:latest\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.docker_tty");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 4);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  for (const std::string ok : {"docker run --rm --gpus all img\n", "docker run -d img\n",
                               "docker run -i img < in.txt\n", "docker run -t img\n", "docker exec -it c bash\n"}) {
    CAPTURE(ok);
    CHECK(with_rule(run("#!/bin/bash\n" + ok), "audit.docker_tty").empty());
  }
  CHECK(with_rule(run("#!/bin/bash\ndocker run --interactive --tty img\n"), "audit.docker_tty").size() == 1);
}

TEST_CASE("conda activate with no conda shell setup before it refuses: the job keeps the submitting environment")
{
  // conda's message: "CondaError: Run 'conda init' before 'conda activate'";
  // a batch script is a non-interactive shell that reads no ~/.bashrc (bash(1),
  // INVOCATION), where `conda init` defines the conda shell function.
  const std::string launch = "srun torchrun --nproc_per_node=4 --standalone main.py\n";
  const AuditResult bare =
    run("#!/bin/bash\n#SBATCH --gres=gpu:4\nunset PYTHONPATH\nconda activate Torch2.1\n" + launch);
  CAPTURE(describe(bare));
  const auto found = with_rule(bare, "audit.conda_uninitialised");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 4);
  CHECK(found[0]->diagnostic.message.find("Run 'conda init' before 'conda activate'") != std::string::npos);
  // Any of these before it may be the setup: nothing is said.
  for (const std::string setup :
       {"source ~/.bashrc\n", ". /opt/conda/etc/profile.d/conda.sh\n", "eval \"$(conda shell.bash hook)\"\n",
        "module load anaconda3\n", "ml miniforge\n", "conda init bash\n"}) {
    CAPTURE(setup);
    const AuditResult r = run("#!/bin/bash\n#SBATCH --gres=gpu:4\n" + setup + "conda activate Torch2.1\n" + launch);
    CHECK(with_rule(r, "audit.conda_uninitialised").empty());
  }
  // A login shell reads the profile that `conda init` writes to.
  const AuditResult login = run("#!/bin/bash -l\n#SBATCH --gres=gpu:4\nconda activate Torch2.1\n" + launch);
  CHECK(with_rule(login, "audit.conda_uninitialised").empty());
  // micromamba needs its own hook.
  const AuditResult micro = run("#!/bin/bash\nmicromamba activate train\n" + launch);
  const auto m = with_rule(micro, "audit.conda_uninitialised");
  REQUIRE(m.size() == 1);
  CHECK(m[0]->diagnostic.fix.find("micromamba shell hook") != std::string::npos);
}
