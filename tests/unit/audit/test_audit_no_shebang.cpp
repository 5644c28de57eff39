// sbatch refuses a script whose first bytes are not `#!`. On the local Slurm
// 22.05 (scripts/slurm-cluster), both `\n\n#!/bin/bash\n#SBATCH -N 1\n…` and
// `#SBATCH -N 1\n…` give "sbatch: error: This does not look like a batch
// script.  The first line must start with #! followed by the path to an
// interpreter." and exit 1. Round 22's H800 Megatron-DeepSpeed job began
// with two blank lines.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("blank lines before #!: an error on the #! line, and --fix removes them")
{
  const std::string script = "\n\n#!/bin/bash\n#SBATCH --nodes=1\nsrun python train.py\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.no_shebang");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(fix(script) == "#!/bin/bash\n#SBATCH --nodes=1\nsrun python train.py\n");
}

TEST_CASE("no #! line, or a byte order mark in front: an error on line 1")
{
  for (const std::string& script : {std::string("#SBATCH --nodes=1\nsrun python train.py\n"),
                                   std::string("\xEF\xBB\xBF#!/bin/bash\n#SBATCH --nodes=1\nsrun python train.py\n")}) {
    const AuditResult r = run(script);
    CAPTURE(describe(r));
    const auto found = with_rule(r, "audit.no_shebang");
    REQUIRE(found.size() == 1);
    CHECK(line_of(found[0]) == 1);
  }
}

TEST_CASE("a #! first line, or a script with no #SBATCH line (not meant for sbatch): nothing")
{
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 1\nsrun python t.py\n"), "audit.no_shebang").empty());
  CHECK(with_rule(run("\nsrun python t.py\n"), "audit.no_shebang").empty());
}

// On the local Slurm 22.05 a job printing $0 and ${BASH_SOURCE[0]} printed
// /tmp/launchguard-slurm/spool/n1/job00077/slurm_script for both: sbatch's
// copy, run from slurmd's spool directory. Round 25's Cosmos array job
// looked for its repository beside that copy.
TEST_CASE("the script's directory from dirname $0 or BASH_SOURCE in a batch script: one warning")
{
  const std::string script = "#!/bin/bash\n#SBATCH -N 1\n"
                             "DIR=$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\n"
                             "CFG=$(dirname $0)/cfg.yaml\n"
                             "srun python $DIR/train.py --config $CFG\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.script_directory");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
  CHECK(found[0]->diagnostic.message.find("(also on line 4)") != std::string::npos);
  // Not meant for sbatch, in a comment, or handled with SLURM_SUBMIT_DIR: nothing.
  CHECK(with_rule(run("#!/bin/bash\nDIR=$(dirname $0)\nsrun python $DIR/t.py\n"), "audit.script_directory").empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 1\n# DIR=$(dirname $0)\nsrun python t.py\n"), "audit.script_directory")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 1\nDIR=${SLURM_SUBMIT_DIR:-$(dirname $0)}\nsrun python $DIR/t.py\n"),
                  "audit.script_directory")
          .empty());
}
