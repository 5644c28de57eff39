// srun keeps the last value of a single-valued option. On the local Slurm
// 22.05: `srun --export=ALL,XX=1 --export=AAA bash -c …` ran with only AAA
// (slurmstepd: "execve(): bash: No such file or directory", no PATH), and
// `srun --export=AAA --export=ALL …` with the whole environment.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("srun --export twice: a warning on the first, naming the one that counts")
{
  const AuditResult r =
    run("#!/bin/bash\n#SBATCH --nodes=1\nsrun --export=ALL,A=1 -N 1 --export=B=2 python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.srun_option_repeated");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(found[0]->diagnostic.message.find("--export=B=2") != std::string::npos);
}

TEST_CASE("-N and --nodes with different values: advice; the same value twice, or options that add up: nothing")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=2\nsrun -N 1 --nodes=2 python train.py\n");
  const auto found = with_rule(r, "audit.srun_option_repeated");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(with_rule(run("#!/bin/bash\nsrun --nodes=2 --nodes=2 python train.py\n"), "audit.srun_option_repeated").empty());
  CHECK(with_rule(run("#!/bin/bash\nsrun --container-mounts=/a:/a --container-mounts=/b:/b python train.py\n"),
                  "audit.srun_option_repeated")
          .empty());
}
