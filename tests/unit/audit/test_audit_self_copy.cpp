// GNU cp onto itself fails with status 1 (coreutils 9.1 here: "cannot copy a
// directory, 'd', into itself, 'd/d'", "'f' and 'f' are the same file").
// Held-out round 27: `cp -R $SLURM_TMPDIR/data $SLURM_TMPDIR/data` under an
// ERR trap that exits.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("cp of a path onto itself: a warning; two paths: nothing")
{
  const std::string head = "#!/bin/bash\n#SBATCH -N 1\n";
  const AuditResult r = run(head + "cp -R $SLURM_TMPDIR/data $SLURM_TMPDIR/data\nsrun python t.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.self_copy");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
  CHECK(with_rule(run(head + "cp -R $PROJECT/data $SLURM_TMPDIR/data\nsrun python t.py\n"), "audit.self_copy").empty());
  CHECK(with_rule(run(head + "cp -R a b c\nsrun python t.py\n"), "audit.self_copy").empty());
}
