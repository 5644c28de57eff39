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
