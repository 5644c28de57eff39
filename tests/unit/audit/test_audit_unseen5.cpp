// Families found on public launch scripts the rules had not seen (issue 13,
// fifth held-out round): each case is a synthetic script with one pattern.
// Where the bytes/messages come from is said per case.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("an #SBATCH option left empty is an error only where sbatch refuses it")
{
  // `sbatch --test-only` on the local Slurm 22.05: `--time=` gives "Invalid
  // --time specification" (rc 255); `--mail-user=`, `--comment=`, `--qos=`
  // and `--gpus-per-node=` are accepted (rc 0); `--account=` is refused only
  // where accounts are enforced.
  const AuditResult r = run("#!/bin/bash\n#SBATCH --time=\n#SBATCH --mail-user=\n#SBATCH --mail-type=ALL\n"
                            "#SBATCH --comment=\n#SBATCH --qos=\n#SBATCH --account=\nsrun python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.directive_value");
  REQUIRE(found.size() == 2);
  CHECK(line_of(found[0]) == 2);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[0]->diagnostic.message.find("Invalid --time specification") != std::string::npos);
  CHECK(line_of(found[1]) == 7);
  CHECK(found[1]->diagnostic.severity == lg::Severity::warning);
}

TEST_CASE("$1, $@ and $* inside a function are the function's arguments")
{
  // bash manual, "Shell Functions": "the arguments to the function become the
  // positional parameters during its execution".
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 1\nset -euo pipefail\ncheck() {\n  local v=\"$1\"\n  echo \"$v\"\n}\n"
                            "check A\nsrun python train.py\n");
  CHECK(with_rule(r, "audit.nounset_positional").empty());
  CHECK(with_rule(run("#!/bin/bash\nset -u\necho \"$1\"\nsrun python train.py\n"), "audit.nounset_positional").size()
        == 1);
  // A launch wrapped in a function runs what its callers pass, not the script's arguments.
  const AuditResult f = run("#!/bin/bash\n#SBATCH -N 1\nlaunch() {\n  srun bash -c \"torchrun --nproc_per_node=4 $*\"\n}\n"
                            "launch itwinai exec-pipeline\n");
  const auto advice = with_rule(f, "audit.no_launch");
  REQUIRE(advice.size() == 1);
  CHECK(advice[0]->diagnostic.message.find("script's own arguments") == std::string::npos);
  CHECK(advice[0]->diagnostic.message.find("function") != std::string::npos);
  CHECK(line_of(advice[0]) == 4);
}

TEST_CASE("a variable Slurm exports for a GPU job is not reported as unexported")
{
  // Slurm gres.html: CUDA_VISIBLE_DEVICES is in the batch script's environment
  // when GPUs are allocated, so `CUDA_VISIBLE_DEVICES=0,1` changes the exported value.
  const AuditResult r = run("#!/bin/bash\n#SBATCH --gres=gpu:4\nCUDA_VISIBLE_DEVICES=\"0,1,2,3\"\nNCCL_DEBUG=WARN\n"
                            "srun python train.py\n");
  const auto found = with_rule(r, "audit.not_exported");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("NCCL_DEBUG") != std::string::npos);
}

TEST_CASE("a space after the line-continuation backslash ends the command")
{
  // bash(1), QUOTING: only `\` followed by a newline continues the line; bash
  // here runs `torchrun ' '` and then "--master_port=29501: command not found".
  const AuditResult r = run("#!/bin/bash\ntorchrun \\ \n    --master_port=29501 --nproc_per_node=1 \\ \n    -m train\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.space_after_backslash");
  REQUIRE(found.size() == 1);  // line 3's own space is named in the same finding
  CHECK(line_of(found[0]) == 2);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[0]->diagnostic.message.find("line 3 (`--master_port=29501`") != std::string::npos);
  // A quoted space and a clean continuation are fine.
  CHECK(with_rule(run("#!/bin/bash\necho \"a \\ b\"\ntorchrun \\\n  train.py\n"), "audit.space_after_backslash").empty());
}

TEST_CASE("a > inside [ ] is a redirection")
{
  // bash(1): redirections may appear anywhere in a simple command; bash here
  // creates a file named 0 for `[ "$N" > 0 ]` and the test is true.
  const AuditResult r = run("#!/bin/bash\nif [ \"$SLURM_CPUS_PER_TASK\" > 0 ] ; then\n  echo\nfi\n[ -n \"$X\" ] > /dev/null\n"
                            "[[ $a > $b ]]\nsrun python train.py\n");
  const auto found = with_rule(r, "audit.test_redirect");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 2);
  CHECK(found[0]->diagnostic.message.find("`0`") != std::string::npos);
}

TEST_CASE("export of a word that is not a name sets nothing")
{
  // bash 5.2 here: `export /=x` prints "`/=x': not a valid identifier" and returns 1.
  const AuditResult r = run("#!/bin/bash\nexport /=/gpfs/cache\nexport HF_HOME=/gpfs/cache a[1]=x\nsrun python train.py\n");
  const auto found = with_rule(r, "audit.invalid_name");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 2);
}

TEST_CASE("an --output directory named after the job ID cannot exist when the job starts")
{
  // The local Slurm 22.05: `#SBATCH -o /tmp/x/log_%j/x.out` with a mkdir of
  // log_$SLURM_JOB_ID in the script ends FAILED 0:53, the script never runs.
  const AuditResult r = run("#!/bin/bash\n#SBATCH -o log/%A/log.out\n#SBATCH -e log/%A/err.out\nmkdir -p log/$SLURM_JOB_ID\n"
                            "srun python train.py\n");
  const auto found = with_rule(r, "audit.output_directory");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 2);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  // %% is a literal percent; %x (the job name) may be a directory made before sbatch.
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -o /scratch/%%j/%x/out-%j.log\nsrun python train.py\n"), "audit.output_directory")
          .empty());
}

TEST_CASE("a script bash cannot parse gets no second finding that nothing was read")
{
  // bash here: `HF_TOKEN=<HF_TOKEN>` is "syntax error near unexpected token `newline'".
  AuditOptions options;
  options.parse_error = [](const std::string&) { return std::optional<std::pair<int, std::string>>{{3, "syntax error"}}; };
  const AuditResult r = audit_text("#!/bin/bash\nX=1\nHF_TOKEN=<HF_TOKEN>\n", "t.sh", options);
  CHECK(with_rule(r, "audit.parse_error").size() == 1);
  CHECK(with_rule(r, "audit.no_launch").empty());
}

TEST_CASE("an option whose variable is empty and unquoted takes the next word")
{
  // bash(1), Word Splitting: an unquoted expansion that yields nothing is
  // removed, so `--nemo_model ${NEMO_MODEL} --hf_token x` reaches the program
  // as `--nemo_model --hf_token x` (argparse: "expected one argument").
  const AuditResult r = run("#!/bin/bash\nNEMO_MODEL=\nEXTRA=\nsrun python finetune.py --nemo_model ${NEMO_MODEL} \\\n"
                            "    --hf_token x --fp16 $EXTRA --seed 1 --name \"$NEMO_MODEL\"\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.empty_option_value");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 4);
  CHECK(found[0]->diagnostic.message.find("takes `--hf_token`") != std::string::npos);
}

TEST_CASE("srun running a shell script says that nothing was read")
{
  // srun(1) runs the named file as the task's program: the training is in that file.
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes 2\nsrun launch_training_accelerate.sh\n");
  const auto advice = with_rule(r, "audit.no_launch");  // pointers into r: r must outlive them
  REQUIRE(advice.size() == 1);
  CHECK(advice[0]->diagnostic.message.find("launch_training_accelerate.sh") != std::string::npos);
}
