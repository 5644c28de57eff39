// `%a` in #SBATCH --output/--error of a job that is no array. sbatch(1),
// "filename pattern": "%a Job array ID (index) number." A job that is not an
// array has none, and Slurm writes NO_VAL: on the local Slurm 22.05
// (scripts/slurm-cluster), `#SBATCH --output=o_%A_%a_%j.out` in a plain job
// wrote o_1_4294967294_1.out.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("%a with no job ID in a job that is no array: a warning, every run writes one file")
{
  const std::string script = "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --output=train_%a.log\nsrun python train.py\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.array_pattern");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(found[0]->diagnostic.message.find("4294967294") != std::string::npos);
  CHECK(found[0]->diagnostic.message.find("every run writes the same file") != std::string::npos);
}

TEST_CASE("%a next to a job ID: advice, the name only carries a meaningless number")
{
  const std::string script =
    "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH -o o_%A_%a.out\n#SBATCH -e e_%j_%3a.err\nsrun python train.py\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.array_pattern");
  REQUIRE(found.size() == 2);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(found[1]->diagnostic.severity == lg::Severity::advice);
}

TEST_CASE("an array job, one submitted with --array, a literal %%a: nothing")
{
  const char* scripts[] = {
    "#!/bin/bash\n#SBATCH --array=0-3\n#SBATCH --output=run_%a.log\nsrun python train.py\n",
    // meant for `sbatch --array=…`: the script reads its task ID
    "#!/bin/bash\n#SBATCH --output=run_%a.log\nsrun python train.py --shard $SLURM_ARRAY_TASK_ID\n",
    "#!/bin/bash\n# submit: sbatch --array=0-9 this.sh\n#SBATCH --output=run_%a.log\nsrun python train.py\n",
    "#!/bin/bash\n#SBATCH --output=run_%%a.log\nsrun python train.py\n",
  };
  for (const char* script : scripts) {
    const AuditResult r = run(script);
    CAPTURE(script);
    CHECK(with_rule(r, "audit.array_pattern").empty());
  }
}
