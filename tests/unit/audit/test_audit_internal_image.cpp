// Images only NVIDIA's network can pull: nvcr.io's `nvidian` organisation
// (NVlabs/alpasim#44: `docker pull nvcr.io/nvidian/…` -> "denied: Access
// Denied", "That's an internal-only image") and gitlab-master.nvidia.com.
// Held-out round 26: MegaMolBART's
// `CONTAINER="nvcr.io#nvidian/clara-lifesciences/…:latest" # TODO update with public path`.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("an internal registry's image: one warning where it is written")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=1\n"
                            "CONTAINER=\"nvcr.io#nvidian/clara/mmb:latest\" # TODO update with public path\n"
                            "srun --container-image=$CONTAINER python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.internal_image");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  const AuditResult gitlab =
    run("#!/bin/bash\nsrun --container-image=gitlab-master.nvidia.com/dl/dgx/pytorch:21.12-py3 python t.py\n");
  CHECK(with_rule(gitlab, "audit.internal_image").size() == 1);
  CHECK(with_rule(run("#!/bin/bash\nsrun --container-image=nvcr.io/nvidia/pytorch:24.05-py3 python t.py\n"),
                  "audit.internal_image")
          .empty());
}
