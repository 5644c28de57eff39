// sbatch(1): the job's exit code is the batch script's, whose status is its
// last command's. Held-out round 31's Pleias job: `srun torchrun …` then
// `echo "done"`, no set -e: a failed run ends COMPLETED.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("only echo after the training launch: advice; set -e, $?, || exit or a last launch: nothing")
{
  const std::string head = "#!/bin/bash\n#SBATCH -N 1\n";
  const AuditResult r = run(head + "srun python train.py\necho \"done\"\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.trailing_status");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(line_of(found[0]) == 4);
  for (const std::string& script :
       std::vector<std::string>{head + "set -e\nsrun python train.py\necho done\n",
                                "#!/bin/bash -e\n#SBATCH -N 1\nsrun python train.py\necho done\n",
                                head + "srun python train.py\necho \"exit $?\"\n",
                                head + "srun python train.py || exit 1\necho done\n", head + "srun python train.py\n"}) {
    CAPTURE(script);
    CHECK(with_rule(run(script), "audit.trailing_status").empty());
  }
}
