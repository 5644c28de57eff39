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
