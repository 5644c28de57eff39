// bash(1), "Lists": `;` and `&&` end a command; a `\` after them only joins
// the next line. Held-out round 30's OpenLLaMA2 template: `srun … \` /
// `  pip uninstall xgboost -y; \` / `  pip install ray[default]; \` /
// `  ray start --head …`: only the first pip runs in the step.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("srun's continued payload cut by `; \\`: a warning naming what runs in the batch shell")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 2\nsrun -N1 --container-image=img \\\n"
                            "  pip uninstall xgboost -y; \\\n  pip install ray; \\\n  ray start --head --block &\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.step_payload_split");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 4);
  CHECK(found[0]->diagnostic.message.find("`pip install`") != std::string::npos);
  CHECK(with_rule(run("#!/bin/bash\nsrun -N1 hostname; echo done\n"), "audit.step_payload_split").empty());
}
