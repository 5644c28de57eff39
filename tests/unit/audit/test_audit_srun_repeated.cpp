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
  const auto found = with_rule(r, "audit.option_repeated");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(found[0]->diagnostic.message.find("--export=B=2") != std::string::npos);
}

TEST_CASE("-N and --nodes with different values: advice; the same value twice, or options that add up: nothing")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=2\nsrun -N 1 --nodes=2 python train.py\n");
  const auto found = with_rule(r, "audit.option_repeated");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(with_rule(run("#!/bin/bash\nsrun --nodes=2 --nodes=2 python train.py\n"), "audit.option_repeated").empty());
  CHECK(with_rule(run("#!/bin/bash\nsrun --container-mounts=/a:/a --container-mounts=/b:/b python train.py\n"),
                  "audit.option_repeated")
          .empty());
}

// argparse's store action keeps the last value (Python argparse docs,
// "action"). Held-out round 28's accelerate launch gave --machine_rank twice,
// $SLURM_NODEID and then $SLURM_PROCID: one per-task finding, on the one
// that counts, and advice on the one that does not.
TEST_CASE("a launcher option given twice: advice on the first; the per-task rule judges only the last")
{
  const AuditResult r =
    run("#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=1\n"
        "srun accelerate launch --num_machines 4 --num_processes 32 --machine_rank $SLURM_NODEID \\\n"
        "  --main_process_ip h --machine_rank $SLURM_PROCID train.py\n");
  CAPTURE(describe(r));
  const auto repeated = with_rule(r, "audit.option_repeated");
  REQUIRE(repeated.size() == 1);
  CHECK(line_of(repeated[0]) == 4);
  const auto per_task = with_rule(r, "audit.per_task_variable");
  REQUIRE(per_task.size() == 1);
  CHECK(line_of(per_task[0]) == 5);
}
